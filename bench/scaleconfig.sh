#!/usr/bin/env bash
# Writes a business of many properties to stdout: the demo's business,
# limits, mail and deployment with N generated properties of three room
# types each, in four time zones. Usage:
#   bench/scaleconfig.sh FRONTDESK_BINARY N >scale.toml
set -euo pipefail
n=${2:?usage: bench/scaleconfig.sh FRONTDESK_BINARY N}
"$1" init --demo | awk -v n="$n" '
  /^\[\[locations\]\]/ && !done { skipping = 1 }
  /^\[limits\]/ && skipping && !done {
    split("America/Denver America/New_York Europe/Paris Asia/Tokyo", zones, " ")
    for (i = 1; i <= n; i++) {
      k = i - 1
      prefix = "P" sprintf("%c%c%c", 65 + int(k / 676) % 26, 65 + int(k / 26) % 26, 65 + k % 26)
      printf "[[locations]]\nslug = \"p%04d\"\nname = \"Property %04d\"\nphone = \"+1 303 555 %04d\"\n", i, i, i % 10000
      printf "time_zone = \"%s\"\nreference_prefix = \"%s\"\n\n", zones[1 + k % 4], prefix
      printf "[[locations.units]]\ntype = \"single\"\ncount = 3\nnightly_rate = \"89.00\"\nweekly_rate = \"540.00\"\nmin_nights = 1\n\n"
      printf "[[locations.units]]\ntype = \"double\"\ncount = 2\nnightly_rate = \"119.00\"\nmin_nights = 1\n\n"
      printf "[[locations.units]]\ntype = \"studio\"\ncount = 1\nweekly_rate = \"560.00\"\nmin_nights = 7\n\n"
    }
    skipping = 0; done = 1
  }
  !skipping { print }
  '
