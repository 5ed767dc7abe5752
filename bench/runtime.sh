# Sourced by the load scripts that set frontdesk beside a baseline (not
# run): every server of a comparison runs with the runtime settings serve
# picks for itself on the demo business, so neither side collects garbage
# more often than the other. serve sets GOGC=400 and a soft memory limit
# of 96 MiB and 4 KiB a property (internal/memplan.Limit): 100675584 bytes
# for the demo's three. Given in the environment, both reach every server,
# serve included (its start banner then says "from the environment").
# Set GOGC or GOMEMLIMIT to run every side at another value; GOMAXPROCS,
# when set, reaches all of them too.
export GOGC=${GOGC:-400}
export GOMEMLIMIT=${GOMEMLIMIT:-100675584}
echo "runtime: GOGC=$GOGC GOMEMLIMIT=$GOMEMLIMIT GOMAXPROCS=${GOMAXPROCS:-unset}, for every server" >&2
