package usphttp

import (
	"context"
	"net/http"

	"frontdesk/usp"
)

// checkoutRoutes are the UCP checkout sessions of UCP-Native Mode (§7.5),
// under usp.UCPPath, when the business serves them; the profile declares
// them exactly then. They answer as the USP operations do: the same
// authentication, idempotency keys and problem documents.
func (h *Handler) checkoutRoutes() []Route {
	if !h.Business.CheckoutServed() {
		return nil
	}
	ops := map[string]func(context.Context, usp.Call, *http.Request) (any, error){
		"ucp_checkout_create": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.CheckoutRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.CreateCheckout(ctx, call, in)
		},
		"ucp_checkout_get": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.GetCheckout(ctx, call, r.PathValue("checkout_id"))
		},
		"ucp_checkout_complete": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			var in usp.CompleteCheckoutRequest
			if err := decode(r, &in); err != nil {
				return nil, err
			}
			return h.Business.CompleteCheckout(ctx, call, r.PathValue("checkout_id"), in)
		},
		"ucp_checkout_cancel": func(ctx context.Context, call usp.Call, r *http.Request) (any, error) {
			return h.Business.CancelCheckout(ctx, call, r.PathValue("checkout_id"))
		},
	}
	var routes []Route
	for _, m := range usp.UCPMethods() {
		op := ops[m.Name]
		routes = append(routes, Route{m.HTTPMethod + " " + usp.UCPPath + m.Path,
			http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, op) })})
	}
	return routes
}
