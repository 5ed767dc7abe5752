package config

import (
	"net"
	"strings"
)

// TLS is how serve speaks HTTPS on its own, without a proxy in front.
type TLS struct {
	// Mode is "off" (plain HTTP, or a proxy terminates TLS), "acme"
	// (certificates for deployment.hostnames obtained and renewed
	// automatically with ACME HTTP-01) or "files" (a certificate and key
	// kept by the owner, re-read when they change).
	Mode string `toml:"mode"`
	// HTTPAddr is the plain-HTTP listener beside the HTTPS one: it answers
	// ACME challenges and redirects everything else to HTTPS. "" turns
	// it off (an ACME CA then cannot validate).
	HTTPAddr string `toml:"http_addr"`
	// HSTSSeconds is the max-age of Strict-Transport-Security on HTTPS
	// answers; 0 sends none.
	HSTSSeconds int `toml:"hsts_seconds"`
	// ACME settings.
	ACMEDirectory string `toml:"acme_directory"` // the CA's directory URL
	ACMEEmail     string `toml:"acme_email"`     // where the CA writes about expiring certificates
	// ACMECAFile, when set, is a PEM file of roots the ACME directory's own
	// HTTPS is checked against, for a private or test CA.
	ACMECAFile string `toml:"acme_ca_file"`
	// CacheDir keeps the account key and certificates; default: "acme"
	// under store.data_dir.
	CacheDir string `toml:"cache_dir"`
	// Certificate files.
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
}

// LetsEncrypt is the default ACME directory.
const LetsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"

// On reports whether serve speaks HTTPS itself.
func (t TLS) On() bool { return t.Mode == "acme" || t.Mode == "files" }

// ACMEHostnames are the hostnames a certificate is asked for: the
// deployment's, less addresses and names without a dot, which no public
// CA issues for.
func (c Config) ACMEHostnames() []string {
	var out []string
	for _, h := range c.Deployment.Hostnames {
		if net.ParseIP(h) == nil && strings.Contains(strings.Trim(h, "."), ".") {
			out = append(out, h)
		}
	}
	return out
}

func (c Config) validateTLS(v *validator) {
	t := c.TLS
	switch t.Mode {
	case "", "off":
		return
	case "acme":
		if len(c.ACMEHostnames()) == 0 {
			v.add("tls.mode", `"acme" needs a public hostname in deployment.hostnames (addresses and names without a dot get no certificate)`)
		}
		v.url("tls.acme_directory", t.ACMEDirectory, true)
		if t.CertFile != "" || t.KeyFile != "" {
			v.add("tls.cert_file", `cert_file and key_file are for mode = "files", not "acme"`)
		}
	case "files":
		if t.CertFile == "" || t.KeyFile == "" {
			v.add("tls.cert_file", `mode = "files" needs cert_file and key_file`)
		}
	default:
		v.add("tls.mode", `must be "off", "acme" or "files", got %q`, t.Mode)
	}
	if t.HTTPAddr != "" {
		if _, _, err := net.SplitHostPort(t.HTTPAddr); err != nil {
			v.add("tls.http_addr", "must be HOST:PORT such as :80, got %q", t.HTTPAddr)
		}
	}
	if t.HSTSSeconds < 0 {
		v.add("tls.hsts_seconds", "must be 0 or more, got %d", t.HSTSSeconds)
	}
}
