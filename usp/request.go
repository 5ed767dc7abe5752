package usp

import (
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Decode reads a request's arguments (a REST body or MCP tool arguments,
// a JSON object) into v, the one place both bindings turn JSON into a
// typed request. Text that is not a JSON object is invalid_request
// (malformed, §9.4.3); a member of the wrong JSON type fails validation:
// validation_error, naming the member.
func Decode(raw []byte, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := te.Field
		if field == "" {
			return fail(CodeInvalidRequest, "The arguments must be a JSON object.")
		}
		return fail(CodeValidation, "%s must be %s.", field, jsonKind(te.Type.Kind().String()))
	}
	return &Error{Code: CodeInvalidRequest, Message: "The arguments are not a valid JSON object.", Err: err}
}

// jsonKind names a Go kind as the JSON type a caller sends.
func jsonKind(kind string) string {
	switch {
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "true or false"
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "an integer"
	case strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "slice", kind == "array":
		return "an array"
	default:
		return "an object"
	}
}

// The string formats of the specification's request schemas, checked as
// strictly as their RFCs write them: a date is YYYY-MM-DD and nothing
// more (a date-time is not a date), a date-time has its offset.
var (
	uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	// dateTimePattern is RFC 3339's date-time: the T (or t) and an offset
	// are required, fractions optional.
	dateTimePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`)
)

// isUUID reports whether s is an RFC 9562 UUID in its text form.
func isUUID(s string) bool { return uuidPattern.MatchString(s) }

// isDate reports whether s is an RFC 3339 full-date naming a real day.
func isDate(s string) bool {
	if !datePattern.MatchString(s) {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// isDateTime reports whether s is an RFC 3339 date-time naming a real
// instant.
func isDateTime(s string) bool {
	if !dateTimePattern.MatchString(s) {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	return err == nil
}

// isHTTPSURL reports whether s is an absolute https URL without
// credentials or fragment.
func isHTTPSURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && u.Fragment == "" && u.Opaque == ""
}

// checkIdempotencyKey refuses a key that is not a UUID, the format the
// Idempotency-Key parameter and _meta.usp.idempotency_key declare.
func checkIdempotencyKey(key string) error {
	if key != "" && !isUUID(key) {
		return fail(CodeValidation, "The idempotency key (Idempotency-Key or _meta.usp.idempotency_key) must be a UUID.")
	}
	return nil
}

// BuyerContext is the context parameter of services list and lookup:
// the buyer's locale and intent, for relevance. This business ranks by
// its own catalog only, so the members are validated and otherwise
// unused; unknown members are allowed, as the schema allows them.
type BuyerContext struct {
	AddressCountry *string      `json:"address_country"`
	AddressRegion  *string      `json:"address_region"`
	PostalCode     *string      `json:"postal_code"`
	Coordinates    *Coordinates `json:"coordinates"`
	Language       *string      `json:"language"`
	Currency       *string      `json:"currency"`
	Intent         *string      `json:"intent"`
}

// Coordinates are WGS 84 decimal degrees.
type Coordinates struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
}

var (
	countryPattern  = regexp.MustCompile(`^[A-Za-z]{2}$`)
	currencyPattern = regexp.MustCompile(`^[A-Za-z]{3}$`)
	// languagePattern is the shape of a BCP 47 tag: a 2-3 or 4-8 letter
	// primary subtag and subtags of 1-8 letters or digits.
	languagePattern = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)
)

// check validates the context; nil is no context.
func (c *BuyerContext) check() error {
	if c == nil {
		return nil
	}
	switch {
	case c.AddressCountry != nil && !countryPattern.MatchString(*c.AddressCountry):
		return fail(CodeValidation, "context.address_country must be an ISO 3166-1 alpha-2 code such as US.")
	case c.Currency != nil && !currencyPattern.MatchString(*c.Currency):
		return fail(CodeValidation, "context.currency must be an ISO 4217 code such as USD.")
	case c.Language != nil && !languagePattern.MatchString(*c.Language):
		return fail(CodeValidation, "context.language must be a BCP 47 language tag such as en or fr-CA.")
	}
	if g := c.Coordinates; g != nil {
		switch {
		case g.Latitude == nil || g.Longitude == nil:
			return fail(CodeInvalidRequest, "context.coordinates needs latitude and longitude.")
		case math.Abs(*g.Latitude) > 90:
			return fail(CodeValidation, "context.coordinates.latitude must be between -90 and 90.")
		case math.Abs(*g.Longitude) > 180:
			return fail(CodeValidation, "context.coordinates.longitude must be between -180 and 180.")
		}
	}
	return nil
}

// DeliveryAddress is where the business would travel to the buyer
// (booking.json DeliveryAddress). No service of this business travels,
// so an address is validated and echoed on the booking, as §5.2 allows
// for any channel.
type DeliveryAddress struct {
	Line1       string `json:"line1"`
	Line2       string `json:"line2,omitempty"`
	City        string `json:"city"`
	Region      string `json:"region,omitempty"`
	PostalCode  string `json:"postal_code,omitempty"`
	Country     string `json:"country"`
	Coordinates *struct {
		Lat *float64 `json:"lat,omitempty"`
		Lng *float64 `json:"lng,omitempty"`
	} `json:"coordinates,omitempty"`
}

func (a *DeliveryAddress) check() error {
	if a == nil {
		return nil
	}
	if strings.TrimSpace(a.Line1) == "" || strings.TrimSpace(a.City) == "" || a.Country == "" {
		return fail(CodeInvalidRequest, "delivery_address needs line1, city and country.")
	}
	if !countryPattern.MatchString(a.Country) {
		return fail(CodeValidation, "delivery_address.country must be an ISO 3166-1 alpha-2 code such as US.")
	}
	if g := a.Coordinates; g != nil {
		if (g.Lat != nil && math.Abs(*g.Lat) > 90) || (g.Lng != nil && math.Abs(*g.Lng) > 180) {
			return fail(CodeValidation, "delivery_address.coordinates must be WGS 84 degrees.")
		}
	}
	return nil
}

// PostPaymentReturnRequest is where the business-hosted payment page
// sends the buyer back after paying or giving up (§8.5.5, paypage.go).
type PostPaymentReturnRequest struct {
	URL    string            `json:"url"`
	Params map[string]string `json:"params,omitempty"`
}

func (p *PostPaymentReturnRequest) check() error {
	if p == nil {
		return nil
	}
	if p.URL == "" {
		return fail(CodeInvalidRequest, "post_payment_return_request needs url.")
	}
	if !isHTTPSURL(p.URL) {
		return fail(CodeValidation, "post_payment_return_request.url must be an absolute https URL.")
	}
	return nil
}
