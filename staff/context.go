package staff

import "context"

// userKey is the context key of the signed-in login.
type userKey struct{}

// WithUser is ctx carrying u, the login a staff request is made by: a
// read that spans locations takes the login's scope from it.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserOf is the login ctx carries; ok is false for none.
func UserOf(ctx context.Context) (u User, ok bool) {
	u, ok = ctx.Value(userKey{}).(User)
	return u, ok
}
