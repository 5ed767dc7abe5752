package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"frontdesk/business"
	"frontdesk/staff"
)

// Staff administration at /staff/users, owners only: every login with
// its role, locations and state, a form to add one, and per login its
// scope, disabling, a password reset and removal. Each change redirects
// back with its result named (Post/Redirect/Get).

// Admin is what the users page needs from the staff package.
type Admin interface {
	HasUsers(ctx context.Context) (bool, error)
	Users(ctx context.Context) ([]staff.User, error)
	AddUser(ctx context.Context, username, password string, role staff.Role, locations []string) (staff.User, error)
	SetScope(ctx context.Context, username string, role staff.Role, locations []string) (staff.User, error)
	SetDisabled(ctx context.Context, username string, disabled bool) (staff.User, error)
	ResetPassword(ctx context.Context, username, password string) (staff.User, error)
	RemoveUser(ctx context.Context, username string) error
}

var _ Admin = (*staff.Service)(nil)

type usersData struct {
	Users     []userRow
	Locations []business.Location
	Done      string
	Problem   string
	Added     addUserForm
}

type userRow struct {
	staff.User
	Self bool // the signed-in owner, who may not disable or remove themselves here
}

// addUserForm is the add form as typed, kept after a refusal.
type addUserForm struct {
	Username, Role string
	Locations      []string
}

// Has reports whether the form chose location slug.
func (f addUserForm) Has(slug string) bool {
	for _, l := range f.Locations {
		if l == slug {
			return true
		}
	}
	return false
}

var userResults = map[string]string{
	"added":    "Login added. Give its password to its owner in person or by phone, never by email.",
	"scoped":   "Role and locations saved.",
	"disabled": "Login disabled; its sessions ended.",
	"enabled":  "Login enabled again.",
	"reset":    "New password set; the login's sessions ended.",
	"removed":  "Login removed; its sessions ended.",
}

func (s *StaffScreen) users(w http.ResponseWriter, r *http.Request, v visit) {
	s.usersPage(w, r, v, http.StatusOK, usersData{Done: userResults[r.URL.Query().Get("done")], Added: addUserForm{Role: "clerk"}})
}

func (s *StaffScreen) usersPage(w http.ResponseWriter, r *http.Request, v visit, status int, d usersData) {
	if v.User.Role != staff.Owner {
		http.Error(w, "Only owners manage logins.", http.StatusForbidden)
		return
	}
	users, err := s.Admin.Users(r.Context())
	if err != nil {
		s.fail(w, r, "list staff users", err)
		return
	}
	for _, u := range users {
		d.Users = append(d.Users, userRow{User: u, Self: u.Username == v.User.Username})
	}
	d.Locations = s.Config.Locations
	s.render(w, r, v, status, "staff_users.html", d)
}

// addUser takes the add form.
func (s *StaffScreen) addUser(w http.ResponseWriter, r *http.Request, v visit) {
	if v.User.Role != staff.Owner {
		http.Error(w, "Only owners manage logins.", http.StatusForbidden)
		return
	}
	f := r.PostForm
	form := addUserForm{Username: strings.ToLower(strings.TrimSpace(f.Get("username"))), Role: f.Get("role"), Locations: f["location"]}
	if form.Role == string(staff.Owner) {
		form.Locations = nil // an owner sees every location
	}
	_, err := s.Admin.AddUser(r.Context(), form.Username, f.Get("password"), staff.Role(form.Role), form.Locations)
	if err != nil {
		s.userRefused(w, r, v, err, form)
		return
	}
	http.Redirect(w, r, "/staff/users?done=added", http.StatusSeeOther)
}

// changeUser takes one login's forms: scope, disable, enable, reset or
// remove, named by the button pressed.
func (s *StaffScreen) changeUser(w http.ResponseWriter, r *http.Request, v visit) {
	if v.User.Role != staff.Owner {
		http.Error(w, "Only owners manage logins.", http.StatusForbidden)
		return
	}
	name, f := r.PathValue("username"), r.PostForm
	var err error
	done := f.Get("do")
	switch done {
	case "scoped":
		locations := f["location"]
		if f.Get("role") == string(staff.Owner) {
			locations = nil
		}
		_, err = s.Admin.SetScope(r.Context(), name, staff.Role(f.Get("role")), locations)
	case "disabled", "enabled":
		if name == v.User.Username {
			err = &staff.Error{Code: staff.CodeInvalid, Message: "you cannot disable your own login here; another owner can"}
			break
		}
		_, err = s.Admin.SetDisabled(r.Context(), name, done == "disabled")
	case "reset":
		_, err = s.Admin.ResetPassword(r.Context(), name, f.Get("password"))
	case "removed":
		if name == v.User.Username {
			err = &staff.Error{Code: staff.CodeInvalid, Message: "you cannot remove your own login here; another owner can"}
			break
		}
		err = s.Admin.RemoveUser(r.Context(), name)
	default:
		http.Error(w, "Unknown change.", http.StatusBadRequest)
		return
	}
	if err != nil {
		s.userRefused(w, r, v, err, addUserForm{Role: "clerk"})
		return
	}
	if done == "reset" && name == v.User.Username {
		// The reset ended this very session.
		http.Redirect(w, r, "/staff/signin?next="+url.QueryEscape("/staff/users"), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/staff/users?done="+done, http.StatusSeeOther)
}

func (s *StaffScreen) userRefused(w http.ResponseWriter, r *http.Request, v visit, err error, form addUserForm) {
	se, ok := staff.AsError(err)
	if !ok || se.Code == staff.CodeInternal {
		s.fail(w, r, "change staff user", err)
		return
	}
	msg := se.Message
	if se.Code == staff.CodeDenied {
		msg = "that login does not exist any more"
	}
	s.usersPage(w, r, v, http.StatusUnprocessableEntity, usersData{Problem: strings.ToUpper(msg[:1]) + msg[1:] + ". Nothing was changed.", Added: form})
}
