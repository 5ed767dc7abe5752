package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/staff"
)

// TestStaffAddUser creates logins from the command line on a data
// directory, then signs in with them through the staff service on the
// same store, as serve would.
func TestStaffAddUser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("correct horse battery\n"), 0o600)
	out, _, err := runCmd(t, "staff", "add-user", "--username", "maria", "--password-file", pwFile, "--location", "riverside", "--location", "oldtown", "--data", dir)
	if err != nil || out != "added clerk maria (riverside, oldtown)\n" {
		t.Fatalf("add-user = %q, %v", out, err)
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), clock.System{}, []string{"staff", "add-user", "--username", "owner", "--role", "owner", "--data", dir},
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
	svc, err := staff.New(st, c.Portfolio, staff.Options{})
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

// TestStaffUserCommands lists, resets and removes logins from the
// command line: the list shows role, scope and state; a reset password
// signs in and the old one does not; the only owner cannot be removed.
func TestStaffUserCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, _, err := runCmd(t, "staff", "users", "--data", dir)
	if err != nil || !strings.Contains(out, "no logins yet: add the first with frontdesk staff add-user") {
		t.Fatalf("users on a fresh store = %q, %v", out, err)
	}
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("correct horse battery\n"), 0o600)
	for _, args := range [][]string{{"--username", "olga", "--role", "owner"}, {"--username", "carl", "--location", "oldtown"}} {
		if _, _, err := runCmd(t, append([]string{"staff", "add-user", "--password-file", pwFile, "--data", dir}, args...)...); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err = runCmd(t, "staff", "users", "--data", dir)
	want := "USERNAME  ROLE   LOCATIONS       STATE    CREATED\ncarl      clerk  oldtown         enabled  "
	if err != nil || !strings.HasPrefix(out, want) || !strings.Contains(out, "\nolga      owner  every location  enabled  ") {
		t.Fatalf("users = %q, %v", out, err)
	}
	var stdout bytes.Buffer
	err = run(context.Background(), clock.System{}, []string{"staff", "reset-password", "carl", "--data", dir}, strings.NewReader("a brand new password\n"), &stdout, io.Discard)
	if err != nil || stdout.String() != "new password set for carl; their sessions ended\n" {
		t.Fatalf("reset-password = %q, %v", stdout.String(), err)
	}
	if _, _, err := runCmd(t, "staff", "reset-password", "nobody", "--password-file", pwFile, "--data", dir); err == nil || !strings.Contains(err.Error(), `no user "nobody"`) {
		t.Fatalf("reset-password of nobody = %v", err)
	}
	c := config.Demo()
	c.Store.DataDir = dir
	svc, done, err := openLogins(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SignIn(context.Background(), "carl", "correct horse battery", "127.0.0.1"); err == nil {
		t.Fatal("the old password still signs in")
	}
	if _, _, err := svc.SignIn(context.Background(), "carl", "a brand new password", "127.0.0.1"); err != nil {
		t.Fatalf("the new password: %v", err)
	}
	done()
	if _, _, err := runCmd(t, "staff", "remove-user", "olga", "--data", dir); err == nil || !strings.Contains(err.Error(), "olga is the only enabled owner") {
		t.Fatalf("removing the only owner = %v", err)
	}
	out, _, err = runCmd(t, "staff", "remove-user", "carl", "--data", dir)
	if err != nil || out != "removed carl; their sessions ended\n" {
		t.Fatalf("remove-user = %q, %v", out, err)
	}
	if out, _, _ := runCmd(t, "staff", "users", "--data", dir); strings.Contains(out, "carl") {
		t.Fatalf("carl is still listed: %q", out)
	}
}

// TestPasswordsFromOneInput: commands run one after another on one
// standard input (a script's) each read their own line; the first no
// longer swallows the lines after it.
func TestPasswordsFromOneInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := strings.NewReader("the first long password\nthe second long password\n")
	for _, name := range []string{"olga", "carl"} {
		var stdout bytes.Buffer
		err := run(context.Background(), clock.System{}, []string{"staff", "add-user", "--username", name, "--role", "owner", "--data", dir}, in, &stdout, io.Discard)
		if err != nil {
			t.Fatalf("add-user %s: %v", name, err)
		}
	}
	c := config.Demo()
	c.Store.DataDir = dir
	st, err := openStore(context.Background(), c.Store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := staff.New(st, c.Portfolio, staff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, pw := range map[string]string{"olga": "the first long password", "carl": "the second long password"} {
		if _, _, err := svc.SignIn(context.Background(), name, pw, "127.0.0.1"); err != nil {
			t.Errorf("%s cannot sign in with %q: %v", name, pw, err)
		}
	}
}
