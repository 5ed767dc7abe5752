// Package filelock takes advisory locks on files, so two processes do not
// use one file that only one may use at a time (a SQLite database during
// a restore, a server's click journal).
package filelock
