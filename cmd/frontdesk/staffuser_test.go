package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/staff"
)

// TestStaffAddUser creates logins from the command line on a data
// directory, then signs in with them through the staff service on the
// same store, as serve would.
func TestStaffAddUser(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("correct horse battery\n"), 0o600)
	out, _, err := runCmd(t, "staff", "add-user", "--username", "maria", "--password-file", pwFile, "--location", "riverside", "--location", "oldtown", "--data", dir)
	if err != nil || out != "added clerk maria (riverside, oldtown)\n" {
		t.Fatalf("add-user = %q, %v", out, err)
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"staff", "add-user", "--username", "owner", "--role", "owner", "--data", dir},
		strings.NewReader("a long owner password\n"), &stdout, &stderr)
	if err != nil || stdout.String() != "added owner owner (every location)\n" {
		t.Fatalf("add-user from stdin = %q, %v", stdout.String(), err)
	}
	refusals := []struct {
		args []string
		want string
	}{
		{[]string{"--username", "maria", "--password-file", pwFile, "--location", "airport"}, `user "maria" already exists`},
		{[]string{"--password-file", pwFile}, "--username is required"},
		{[]string{"--username", "ann", "--password-file", pwFile, "--location", "nowhere"}, `location "nowhere" is not in the config`},
		{[]string{"--username", "ann", "--password-file", pwFile}, "a clerk needs at least one location"},
		{[]string{"--username", "ann", "--password-file", filepath.Join(dir, "missing")}, "--password-file"},
	}
	for _, r := range refusals {
		_, _, err := runCmd(t, append(append([]string{"staff", "add-user"}, r.args...), "--data", dir)...)
		if err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("add-user %v = %v, want %q", r.args, err, r.want)
		}
	}

	c := config.Demo()
	c.Store.DataDir = dir
	st, err := openStore(context.Background(), c.Store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := staff.New(st, c, staff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SignIn(context.Background(), "maria", "correct horse battery", "127.0.0.1"); err != nil {
		t.Fatalf("maria cannot sign in: %v", err)
	}
	u, err := svc.User(context.Background(), "ann")
	if staff.ErrorCode(err) != staff.CodeDenied {
		t.Fatalf("a refused user was stored: %+v %v", u, err)
	}
}
