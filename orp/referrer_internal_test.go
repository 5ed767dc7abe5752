package orp

import (
	"net/url"
	"testing"
)

// parsedDomain is referringDomain read by url.Parse alone, which the
// fast reading of plain addresses must agree with.
func parsedDomain(ref string) string {
	if ref == "" {
		return "direct"
	}
	u, err := url.Parse(ref)
	if err != nil || u.Hostname() == "" {
		return "other"
	}
	return domainOf(u.Hostname())
}

var referrers = []string{
	"", "https://news.example/posts/tools-we-use", "http://WWW.Example.COM", "https://example.com?x=1",
	"https://example.com#top", "https://localhost/", "https:///path", "https://", "https://a.b/%zz",
	"https://a.b/#%zz", "https://a.b/?q=%zz", "https://a.b/\x01", "https://a.b/a b", "https://user@a.b/",
	"https://a.b:8443/x", "https://[::1]/", "HTTPS://a.b/", "ftp://a.b/", "a.b/x", "//a.b/x",
	"https://a_b.c/", "https://xn--bcher-kva.example/", "https://a.b\\x/", "https://a.b/ü",
	"https://www./", "https://www.a/", "https://-.-/",
}

func TestReferringDomainReadsAsURLParse(t *testing.T) {
	for _, ref := range referrers {
		if got, want := referringDomain(ref), parsedDomain(ref); got != want {
			t.Errorf("referringDomain(%q) = %q, url.Parse reads %q", ref, got, want)
		}
	}
}

func FuzzReferringDomain(f *testing.F) {
	for _, ref := range referrers {
		f.Add(ref)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		if got, want := referringDomain(ref), parsedDomain(ref); got != want {
			t.Errorf("referringDomain(%q) = %q, url.Parse reads %q", ref, got, want)
		}
	})
}
