package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/staff"
)

// stringList is a flag that may be given more than once.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// runStaffAddUser is `frontdesk staff add-user`: it creates a staff login
// on the same store as serve. The password comes from --password-file, or
// is asked for without echo on a terminal, or read as one line from
// standard input otherwise; it never comes from a flag, where it would
// sit in the shell history and the process list.
func runStaffAddUser(ctx context.Context, clk clock.Clock, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var username, passwordFile, role *string
	var locations stringList
	m, fs, err := newMainWith(clk, "staff add-user", args, stdout, stderr, func(fs *flag.FlagSet) {
		username = fs.String("username", "", "the login name (required)")
		passwordFile = fs.String("password-file", "", "file whose first line is the password; without it, the password is asked for")
		role = fs.String("role", "clerk", "owner (every location, settings) or clerk (listed locations only)")
		fs.Var(&locations, "location", "a location slug the clerk works at; repeat for several")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("staff add-user: unexpected argument %q", fs.Arg(0))
	}
	if *username == "" {
		return errors.New("staff add-user: --username is required")
	}
	password, svc, done, err := passwordAndLogins(ctx, m.Config, *passwordFile, stdin, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	u, err := svc.AddUser(ctx, *username, password, staff.Role(*role), locations)
	if err != nil {
		return staff.CommandError("staff add-user", err)
	}
	fmt.Fprintf(stdout, "added %s %s (%s)\n", u.Role, u.Username, staff.ScopeWords(u))
	return nil
}

// openLogins opens the store of c and the logins in it; done closes the
// store.
func openLogins(ctx context.Context, c config.Config) (svc *staff.Service, done func() error, err error) {
	st, err := openStore(ctx, c.Store)
	if err != nil {
		return nil, nil, err
	}
	svc, err = staff.New(st, c.Portfolio, staff.Options{})
	if err != nil {
		return nil, nil, errors.Join(err, st.Close())
	}
	return svc, st.Close, nil
}

// passwordAndLogins reads a password as staff.ReadPassword does, then opens
// the logins, for the commands that set one.
func passwordAndLogins(ctx context.Context, c config.Config, file string, stdin io.Reader, stderr io.Writer) (string, *staff.Service, func() error, error) {
	password, err := staff.ReadPassword(file, stdin, stderr)
	if err != nil {
		return "", nil, nil, err
	}
	svc, done, err := openLogins(ctx, c)
	return password, svc, done, err
}

// runStaffUsers is `frontdesk staff users`: every login, its role, scope
// and whether it is disabled.
func runStaffUsers(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	m, fs, err := newMainWith(clk, "staff users", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("staff users: unexpected argument %q", fs.Arg(0))
	}
	svc, done, err := openLogins(ctx, m.Config)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	users, err := svc.Users(ctx)
	if err != nil {
		return err
	}
	return staff.PrintUsers(stdout, users)
}

// runStaffRemoveUser is `frontdesk staff remove-user USERNAME`.
func runStaffRemoveUser(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	m, fs, err := newMainWith(clk, "staff remove-user", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 1 {
		return errors.New("staff remove-user: give one username (see frontdesk staff remove-user --help)")
	}
	svc, done, err := openLogins(ctx, m.Config)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	if err := svc.RemoveUser(ctx, fs.Arg(0)); err != nil {
		return staff.CommandError("staff remove-user", err)
	}
	fmt.Fprintf(stdout, "removed %s; their sessions ended\n", fs.Arg(0))
	return nil
}

// runStaffResetPassword is `frontdesk staff reset-password USERNAME`,
// with the password read as add-user reads it.
func runStaffResetPassword(ctx context.Context, clk clock.Clock, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var passwordFile *string
	m, fs, err := newMainWith(clk, "staff reset-password", args, stdout, stderr, func(fs *flag.FlagSet) {
		passwordFile = fs.String("password-file", "", "file whose first line is the new password; without it, the password is asked for")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 1 {
		return errors.New("staff reset-password: give one username (see frontdesk staff reset-password --help)")
	}
	password, svc, done, err := passwordAndLogins(ctx, m.Config, *passwordFile, stdin, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	if _, err := svc.ResetPassword(ctx, fs.Arg(0), password); err != nil {
		return staff.CommandError("staff reset-password", err)
	}
	fmt.Fprintf(stdout, "new password set for %s; their sessions ended\n", fs.Arg(0))
	return nil
}
