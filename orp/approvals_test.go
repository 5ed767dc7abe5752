package orp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/orp/orphttp"
	"frontdesk/orp/schema"
	"frontdesk/store"
)

// failingApprovals is a store whose reads of 0.4 approvals fail.
type failingApprovals struct{ store.Store }

func (f failingApprovals) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	if kind == "orp.approval" {
		return nil, errors.New("test: approvals unreadable")
	}
	return f.Store.List(ctx, kind, prefix, after, limit)
}

// TestSeatApprovals (§11.2 for 0.4): a party whose accept step is ask
// signs a 0.4 deal only when its approval is POSTed to /orp/approve/{id};
// a GET shows the page and approves nothing. The approve reply and the
// deal read carry approved_by (agent); a deal read whose approvals
// cannot be read answers 200 with approvals_unavailable: true.
func TestSeatApprovals(t *testing.T) {
	e := newEnv(t)
	s := e.seats("referral-chain.json")
	creator, curator, news := s.by["p_creator01"], s.by["p_curator01"], s.by["p_news01"]
	e.setStep(news, "accept", "ask")
	deal := s.send(creator, "offer", nil, s.offer(nil), 200)["deal"].(string)
	s.sign(curator, deal, 200)
	m := s.sign(news, deal, 200)
	w, _ := body(m)["waiting"].(map[string]any)
	if body(m)["state"] != "pending" || w == nil || body(m)["approved_by"] != nil {
		t.Fatalf("held signature = %v", body(m))
	}
	url := w["url"].(string)
	esc := url[strings.LastIndex(url, "/")+1:]

	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mux := http.NewServeMux()
		for _, rt := range (&orphttp.Server{Host: e.host}).Routes() {
			mux.Handle(rt.Pattern, rt.Handler)
		}
		mux.ServeHTTP(rw, r)
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/orp/approve/"+esc, nil)
	req.Header.Set("Authorization", "Bearer "+news.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := s.read(creator, deal)["state"]; got != "pending" {
		t.Fatalf("after a GET of the approval: %v, want pending", got)
	}

	req, _ = http.NewRequest("POST", srv.URL+"/orp/approve/"+esc, nil)
	req.Header.Set("Authorization", "Bearer "+news.token)
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST approve = %v %v", resp, err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	e.mustValidate(schema.Message, reply)
	if !strings.Contains(string(reply), `"approved_by":[{"party":"`+news.id+`","by":"agent"`) {
		t.Fatalf("approve reply = %s, want approved_by", reply)
	}
	got := s.read(news, deal)
	want := []any{map[string]any{"party": news.id, "by": "agent", "at": got["updated"]}}
	if got["state"] != "active" || !equalJSON(got["approved_by"], want) {
		t.Fatalf("after the approval: %v approved_by %v, want active, %v", got["state"], got["approved_by"], want)
	}

	e.journal = ""
	e.host = e.newHost(failingApprovals{e.db})
	got = s.read(creator, deal)
	if got["approvals_unavailable"] != true || got["approved_by"] != nil || got["state"] != "active" {
		t.Fatalf("read with approvals unreadable = %v", got)
	}
}
