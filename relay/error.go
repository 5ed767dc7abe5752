package relay

import "frontdesk/internal/fault"

// Code and Error are the module's error type; relay's codes are below.
type (
	Code  = fault.Code
	Error = fault.Error
)

// The endpoint's refusals, each worded once in server.go.
const (
	CodeForged            Code = "relay_forged"    // no live key made the MAC, or the headers are malformed
	CodeStale             Code = "relay_stale"     // the call's time is outside the window or before the start
	CodeReplayed          Code = "relay_replayed"  // the MAC was seen within the window
	CodeTooLarge          Code = "relay_too_large" // the body is over MaxBody
	CodeBusy              Code = "relay_busy"      // the seen-set is full of MACs still in their window
	CodeUnknownOperation  Code = "relay_unknown_operation"
	CodeDeployUnknown     Code = "relay_deploy_unknown"
	CodeDeployDraft       Code = "relay_deploy_draft"
	CodeDeployUnpublished Code = "relay_deploy_unpublished"
	CodeDeployNotCustom   Code = "relay_deploy_not_custom"
	// CodeOutOfScope: a staff operation for a login whose scope does not
	// hold the location.
	CodeOutOfScope Code = "relay_out_of_scope"
)

// The client's failures. None is a rollback: an uncertain call may have
// run at the location.
const (
	// CodeUnreachable: the location took no connection, so the call
	// never ran.
	CodeUnreachable Code = "relay_unreachable"
	// CodeUncertain: a mutation was sent and no answer came within its
	// deadline, or the answer broke off; it may have run.
	CodeUncertain Code = "relay_uncertain"
	// CodeUnavailable: a read got no usable answer in time.
	CodeUnavailable Code = "relay_unavailable"
)

var codes = []Code{CodeForged, CodeStale, CodeReplayed, CodeTooLarge, CodeBusy, CodeUnknownOperation,
	CodeDeployUnknown, CodeDeployDraft, CodeDeployUnpublished, CodeDeployNotCustom, CodeOutOfScope,
	CodeUnreachable, CodeUncertain, CodeUnavailable}

func mine(c Code) bool {
	for _, k := range codes {
		if k == c {
			return true
		}
	}
	return false
}

// AsError finds relay's error in err's chain.
func AsError(err error) (*Error, bool) { return fault.Find(err, mine) }

// failure is an error of code with cause, worded later by the server.
func failure(code Code, cause error) error { return &Error{Code: code, Err: cause} }

// IsUncertain says whether err leaves open that the call ran.
func IsUncertain(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == CodeUncertain
}
