// Package tlsfront is what serve needs to speak HTTPS: certificates from
// ACME (autocert) or from files read again when they change, the plain
// listener's redirect, and the refusal of credentials sent in the clear.
package tlsfront

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"frontdesk/internal/clientip"
	"frontdesk/internal/hostguard"
)

// Options are the [tls] section's settings.
type Options struct {
	Mode          string // "acme", "files", or anything else for none
	ACMEDirectory string
	ACMECAFile    string // PEM roots of the ACME directory, "" for the system's
	ACMEEmail     string
	CacheDir      string   // autocert's cache
	Hostnames     []string // the names certificates are asked for
	CertFile      string
	KeyFile       string
}

// Front is the listener's TLS config and the handler of the plain-HTTP
// listener, which answers ACME challenges (mode "acme") and redirects
// everything else.
type Front struct {
	Config *tls.Config
	// Plain wraps the redirect: autocert answers its HTTP-01 challenges
	// first.
	Plain func(http.Handler) http.Handler
}

// New builds the certificates: autocert with its cache in CacheDir, or
// the owner's files; nil when TLS is off.
func New(t Options) (*Front, error) {
	switch t.Mode {
	case "acme":
		client := &acme.Client{DirectoryURL: t.ACMEDirectory, UserAgent: "frontdesk"}
		if t.ACMECAFile != "" {
			pem, err := os.ReadFile(t.ACMECAFile)
			if err != nil {
				return nil, fmt.Errorf("tls.acme_ca_file: %w", err)
			}
			roots := x509.NewCertPool()
			if !roots.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("tls.acme_ca_file: %s holds no PEM certificate", t.ACMECAFile)
			}
			client.HTTPClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
		}
		dir := t.CacheDir
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("tls.cache_dir: %w", err)
		}
		mgr := &autocert.Manager{
			Prompt: autocert.AcceptTOS, Cache: autocert.DirCache(dir), Email: t.ACMEEmail, Client: client,
			HostPolicy: autocert.HostWhitelist(t.Hostnames...),
		}
		cfg := mgr.TLSConfig()
		cfg.MinVersion = tls.VersionTLS12
		return &Front{Config: cfg, Plain: func(fallback http.Handler) http.Handler {
			challenges := mgr.HTTPHandler(fallback)
			// autocert checks the challenge's Host against the hostnames
			// with its port, which a plain listener off port 80 (behind
			// a port forward) would carry.
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if h, _, err := net.SplitHostPort(r.Host); err == nil {
					r.Host = h
				}
				challenges.ServeHTTP(w, r)
			})
		}}, nil
	case "files":
		files := &certFiles{cert: t.CertFile, key: t.KeyFile}
		if _, err := files.get(nil); err != nil {
			return nil, err
		}
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: files.get, NextProtos: []string{"h2", "http/1.1"}}
		return &Front{Config: cfg, Plain: func(h http.Handler) http.Handler { return h }}, nil
	}
	return nil, nil
}

// certFiles serves the certificate in two PEM files, read again when
// either changes on disk, so a renewal by another tool needs no restart.
type certFiles struct {
	cert, key string
	mu        sync.Mutex
	loaded    *tls.Certificate
	stamp     string // both files' modification times and sizes at the last load
}

func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	stamp, err := fileStamp(c.cert, c.key)
	if err != nil {
		return nil, fmt.Errorf("tls.cert_file: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded != nil && stamp == c.stamp {
		return c.loaded, nil
	}
	pair, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		if c.loaded != nil {
			return c.loaded, nil // a renewal half written: keep serving the last good pair
		}
		return nil, fmt.Errorf("tls.cert_file and tls.key_file: %w", err)
	}
	c.loaded, c.stamp = &pair, stamp
	return c.loaded, nil
}

func fileStamp(paths ...string) (string, error) {
	var b strings.Builder
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%d/%d;", st.ModTime().UnixNano(), st.Size())
	}
	return b.String(), nil
}

// Redirect answers the plain-HTTP listener: probes as on HTTPS,
// everything else sent to the same path on HTTPS, for the hostnames given
// only (a redirect to any Host would be an open redirect).
func Redirect(hostnames []string, httpsAddr string, probes http.Handler) http.Handler {
	hosts := hostguard.New(hostnames)
	_, port, _ := net.SplitHostPort(httpsAddr)
	suffix := ""
	if port != "443" {
		suffix = ":" + port
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
			probes.ServeHTTP(w, r)
			return
		}
		if refusal := hosts.Check(r); refusal != "" {
			http.Error(w, refusal, http.StatusForbidden)
			return
		}
		host := r.Host
		if h, _, err := net.SplitHostPort(r.Host); err == nil {
			host = h
		}
		status := http.StatusPermanentRedirect // keeps the method and body
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			status = http.StatusMovedPermanently
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // an IPv6 literal
		}
		http.Redirect(w, r, "https://"+host+suffix+r.URL.RequestURI(), status)
	})
}

// PlainCredentialsRefusal is the answer to credentials sent in the clear.
const PlainCredentialsRefusal = "Forbidden: staff sign-in, staff sessions and bearer tokens are accepted over HTTPS only (or from this machine). Use the https:// address; behind a proxy that terminates TLS, list it in deployment.trusted_proxies and have it send X-Forwarded-Proto: https."

// PlainCredentials reports a request that carries a credential, or the
// staff screen's sign-in and session cookie, over plain HTTP from another
// machine. A trusted proxy that says the client used HTTPS is believed.
func PlainCredentials(r *http.Request, proxies clientip.Proxies) bool {
	if r.TLS != nil {
		return false
	}
	if r.Header.Get("Authorization") == "" && !strings.HasPrefix(r.URL.Path, "/staff/") {
		return false
	}
	if proxies.FromProxy(r) {
		return !strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	return err != nil || !ip.IsLoopback()
}
