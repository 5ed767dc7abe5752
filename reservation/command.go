package reservation

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CommandRefusal words a refusal of the staff command cmd for the
// command line: the field problems of a bad request, by flag, and the
// desk's public message for what the core refused. ok is false for a
// fault, which is the caller's to log.
func CommandRefusal(cmd string, err error) (refusal error, ok bool) {
	if p, ok := errors.AsType[FormProblems](err); ok {
		fields := slices.Sorted(maps.Keys(p))
		lines := make([]string, 0, len(fields))
		for _, f := range fields {
			lines = append(lines, "--"+flagOf(f)+": "+p[f])
		}
		return fmt.Errorf("%s: %s", cmd, strings.Join(lines, "; ")), true
	}
	if errors.Is(err, ErrNoReservation) {
		return fmt.Errorf("%s: no such reservation", cmd), true
	}
	if e, ok := AsError(err); ok {
		switch e.Code {
		case CodeIllegalTransition, CodeUnitTaken, CodeConflict:
			if e.Err == nil {
				return fmt.Errorf("%s: %s", cmd, e.Message), true
			}
			return fmt.Errorf("%s: %s (%w)", cmd, e.Message, e.Err), true
		}
	}
	return nil, false
}

// flagOf names the flag of a staff booking's field.
func flagOf(field string) string {
	if field == "roomtype" {
		return "unit"
	}
	if field == "dates" {
		return "checkin/--checkout"
	}
	return field
}
