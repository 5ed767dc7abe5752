package direct

import (
	"errors"
	"net"
	"strings"

	"frontdesk/business"
	"frontdesk/reservation"
)

// The fixed refusals of the scheduled sweep (direct-booking.md §14),
// safe to log: they name no guest and no value but the context's.
var (
	ErrSweepDraft       = errors.New("the scheduled sweep refuses a non-production runtime context (deployment.context)")
	ErrSweepUnpublished = errors.New("the scheduled sweep refuses a production context without published evidence (deployment.published)")
)

// CheckSweep says whether the scheduled sweep may write with deployment
// d: a named context other than production, or production not
// published, is a draft and refuses before any write (§14). An empty
// context is the unconfigured local install, where the booking tools
// refuse anyway and the sweep keeps the store tidy.
func CheckSweep(d business.Deployment) error {
	switch ctx := strings.TrimSpace(d.Context); {
	case ctx == "":
		return nil
	case ctx != "production":
		return ErrSweepDraft
	case !d.Published:
		return ErrSweepUnpublished
	}
	return nil
}

// CheckDeployment refuses booking outside the published production
// deploy on a custom hostname (§16), with the phone to call and, for a
// start whose stay is known, its booking form.
func (s *Service) CheckDeployment(c reservation.Caller, phone, form string) *Error {
	return s.checkDeployment(c, route{phone: phone, form: form})
}

// checkDeployment is CheckDeployment for the proof, lookup and
// cancellation steps, whose refusals carry no form.
func (s *Service) checkDeployment(c reservation.Caller, rt route) *Error {
	d := s.cfg.Deployment
	ctx := strings.TrimSpace(d.Context)
	switch {
	case ctx == "":
		return refuse(CodeDeployUnknown, rt)
	case ctx != "production":
		return refuse(CodeDeployDraft, rt, ctx)
	case !d.Published:
		return refuse(CodeDeployStale, rt, ctx)
	case !c.Local && !s.customHost(c.Host):
		return refuse(CodeDeployNotCustom, rt, ctx)
	}
	return nil
}

func (s *Service) customHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	names := s.cfg.Deployment.CustomHostnames
	if len(names) == 0 {
		names = s.cfg.Deployment.Hostnames
	}
	for _, n := range names {
		if strings.EqualFold(n, host) {
			return true
		}
	}
	return false
}
