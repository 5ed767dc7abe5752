package main

import (
	"path/filepath"
	"strconv"

	"frontdesk/internal/tlsfront"
)

// newTLSFront builds the [tls] section's certificates, autocert's cache
// in the data directory unless the config names one; nil when TLS is off.
func (m *Main) newTLSFront() (*tlsfront.Front, error) {
	t := m.Config.TLS
	dir := t.CacheDir
	if dir == "" {
		dir = filepath.Join(m.Config.Store.DataDir, "acme")
	}
	return tlsfront.New(tlsfront.Options{Mode: t.Mode, ACMEDirectory: t.ACMEDirectory, ACMECAFile: t.ACMECAFile, ACMEEmail: t.ACMEEmail,
		CacheDir: dir, Hostnames: m.Config.ACMEHostnames(), CertFile: t.CertFile, KeyFile: t.KeyFile})
}

// hsts is the Strict-Transport-Security value for HTTPS answers, "" for
// none.
func (m *Main) hsts() string {
	if !m.Config.TLS.On() || m.Config.TLS.HSTSSeconds == 0 {
		return ""
	}
	return "max-age=" + strconv.Itoa(m.Config.TLS.HSTSSeconds)
}
