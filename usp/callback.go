package usp

import (
	"crypto/x509"
	"net/http"
	"time"

	"frontdesk/internal/outbound"
)

// CallbackTimeout is how long a platform has to acknowledge a webhook
// (§9.2.3: a 2xx within 10 seconds).
const CallbackTimeout = 10 * time.Second

// CallbackClient returns the client that POSTs webhooks to platforms'
// webhook and callback URLs. It obeys the rule of profile fetches
// (outbound.Rule): special-use addresses are refused at connect time, after
// name resolution, so a callback URL can never reach the business's own
// network; with allowPrivate (development) loopback is reached too, and
// plain http only there. It never follows a redirect. roots, when set,
// replaces the system roots (tests).
func CallbackClient(allowPrivate bool, roots *x509.CertPool) *http.Client {
	return &http.Client{
		Transport:     outbound.Rule{Loopback: allowPrivate}.Transport(roots, CallbackTimeout),
		Timeout:       CallbackTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
