package usp

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"time"
)

// CallbackTimeout is how long a platform has to acknowledge a webhook
// (§9.2.3: a 2xx within 10 seconds).
const CallbackTimeout = 10 * time.Second

// CallbackClient returns the client that POSTs webhooks to platforms'
// webhook and callback URLs. It obeys the rule of profile fetches: unless
// allowPrivate, loopback, private and other special-use addresses are
// refused at connect time, after name resolution, so a callback URL can
// never reach the business's own network. It never follows a redirect.
// roots, when set, replaces the system roots (tests).
func CallbackClient(allowPrivate bool, roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{Timeout: connectTimeout}
	if !allowPrivate {
		dialer.Control = refuseSpecialAddress
	}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:   connectTimeout,
			ResponseHeaderTimeout: CallbackTimeout,
			MaxIdleConns:          16,
			IdleConnTimeout:       30 * time.Second,
		},
		Timeout:       CallbackTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
