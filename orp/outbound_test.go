package orp_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestStagingVerifiesLoopbackSpace: with the development switch of the
// outbound rule (outbound.allow_private), a staging host verifies a
// space on a loopback address with its real fetcher, as proof pages
// were; the numeric forms of an address (127.1, 0x7f000001, 2130706433)
// stay refused even then, and private and link-local addresses too.
func TestStagingVerifiesLoopbackSpace(t *testing.T) {
	e := newEnv(t) // the development rule: loopback admitted
	pub := e.autoParty()
	pages := map[string]string{}
	srv, _ := siteServer(t, pages)
	pages["/issues"] = `<html><head><meta name="orp-party" content="` + pub.id + `"></head></html>`
	u, _ := url.Parse(srv.URL)
	aud := map[string]any{"size": "10k-100k", "source": "platform"}
	_, m := e.send(pub, e.msg(pub, "space", nil, map[string]any{"action": "put", "space": newsletterSpace("http://"+u.Host+"/issues", aud)}))
	if v, _ := body(m)["space"].(map[string]any)["verified"].([]any); len(v) != 1 {
		t.Fatalf("loopback space on a staging host = %v, want verified", m)
	}
	for _, loc := range []string{"http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://10.1.2.3/", "http://169.254.169.254/latest"} {
		_, m := e.send(pub, e.msg(pub, "space", nil, map[string]any{"action": "put", "space": newsletterSpace(loc, aud)}))
		if errCode(m) != "invalid_message" || !strings.Contains(body(m)["field"].(string), "locator") {
			t.Fatalf("locator %s in development = %v, want invalid_message", loc, m)
		}
	}
}
