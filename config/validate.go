package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/money"
)

var (
	slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)
	// phoneCountryCode is an ITU calling code without its +.
	phoneCountryCode = regexp.MustCompile(`^[1-9][0-9]{0,2}$`)
	typePattern      = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,19}$`)
	prefixPattern    = regexp.MustCompile(`^[A-Z]{2,6}$`)
	phonePattern     = regexp.MustCompile(`^\+?[0-9][0-9 ().-]{6,30}$`)
	emailPattern     = regexp.MustCompile(`^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$`)
)

// Validate reports every problem at once. Each error starts with the
// field's path in the file, such as "locations[1].units[0].count".
func (c Config) Validate() error {
	v := &validator{}
	c.validateBusiness(v)
	c.validateLocations(v)
	c.validateLimits(v)
	c.validateMail(v)
	c.validateDeployment(v)
	c.validateORP(v)
	c.validateServer(v)
	c.validateTLS(v)
	c.validatePrivacy(v)
	c.validateUSP(v)
	c.validateChannels(v)
	c.validateSplit(v)
	return joinErrors(v.errs)
}

type validator struct {
	errs  []error
	zones map[string]bool // zone names already checked, and whether they load
}

func (v *validator) add(field, format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
}

func (v *validator) required(field, value string) bool {
	if strings.TrimSpace(value) == "" {
		v.add(field, "is required")
		return false
	}
	return true
}

func (v *validator) url(field, value string, required bool) {
	if value == "" {
		if required {
			v.add(field, "is required")
		}
		return
	}
	if strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "//") {
		return // a page on this server, resolved against the public origin
	}
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		v.add(field, "must be an absolute http or https URL or a path starting with /, got %q", value)
	}
}

func (v *validator) zone(field, value string) {
	// Many locations share a zone; read each from the zone database once.
	valid, seen := v.zones[value]
	if !seen {
		_, err := time.LoadLocation(value)
		valid = err == nil && value != "" && value != "Local"
		if v.zones == nil {
			v.zones = map[string]bool{}
		}
		v.zones[value] = valid
	}
	if !valid {
		v.add(field, "must be an IANA time zone such as America/Denver, got %q", value)
	}
}

func (v *validator) clock(field, value string) {
	if !business.IsClock(value) {
		v.add(field, "must be a local time HH:MM, got %q", value)
	}
}

func (v *validator) phone(field, value string) {
	if v.required(field, value) && !phonePattern.MatchString(value) {
		v.add(field, "must be a phone number such as +1 303 555 0100, got %q", value)
	}
}

func (c Config) validateBusiness(v *validator) {
	b := c.Business
	v.required("business.name", b.Name)
	if len(b.Name) > 120 {
		v.add("business.name", "must be at most 120 characters")
	}
	v.phone("business.phone", b.Phone)
	v.zone("business.time_zone", b.TimeZone)
	v.clock("business.checkin_hour", b.CheckinHour)
	if !money.ValidCurrency(b.Currency) {
		v.add("business.currency", "must be an ISO 4217 code such as USD, got %q", b.Currency)
	}
	if !phoneCountryCode.MatchString(b.PhoneCountryCode) {
		v.add("business.phone_country_code", "must be a country calling code of 1 to 3 digits without +, such as 1 or 44, got %q", b.PhoneCountryCode)
	}
	if b.TaxPercent < 0 || b.TaxPercent > 100 || math.Abs(b.TaxPercent*100-math.Round(b.TaxPercent*100)) > 1e-6 {
		v.add("business.tax_percent", "must be a percentage from 0 to 100 with at most two decimals")
	}
	if b.TaxPercent > 0 {
		v.required("business.tax_label", b.TaxLabel)
	}
	v.required("business.stay_policy_reason", b.StayPolicyReason)
	v.url("business.privacy_url", b.PrivacyURL, true)
	v.url("business.policy_url", b.PolicyURL, true)
	v.url("business.locations_url", b.LocationsURL, false)
	if b.MinAge < 0 || b.MinAge > 99 {
		v.add("business.min_age", "must be from 0 to 99")
	}
	if b.ConfirmHours < 1 || b.ConfirmHours > 168 {
		v.add("business.confirm_hours", "must be from 1 to 168")
	}
	for d := time.Sunday; d <= time.Saturday; d++ {
		if _, err := business.ParseHours(b.OfficeHours.ForDay(d)); err != nil {
			v.add("business.office_hours."+dayKeys[d], "%v", err)
		}
	}
	v.closures("business.closures", b.Closures)
	v.brand(b)
}

// accentPattern is a colour as CSS writes it in hex, "#rrggbb".
var accentPattern = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// brand checks the guest site's logo, accent colour and locale. The
// accent carries white text on buttons, so it must reach the contrast
// WCAG asks of normal text (4.5:1) against white.
func (v *validator) brand(b business.Business) {
	if b.Logo != "" && !strings.HasPrefix(b.Logo, "https://") && (!strings.HasPrefix(b.Logo, "/") || strings.HasPrefix(b.Logo, "//")) {
		v.add("business.logo", "must be an https:// address or a path on this server such as /photos/logo.svg, got %q", b.Logo)
	}
	switch {
	case b.AccentColor == "":
	case !accentPattern.MatchString(b.AccentColor):
		v.add("business.accent_color", "must be a colour written as #rrggbb, such as #0b5d4b, got %q", b.AccentColor)
	case ContrastWithWhite(b.AccentColor) < 4.5:
		v.add("business.accent_color", "%s is too light for white text on it (contrast %.1f:1, at least 4.5:1 is needed): choose a darker shade", b.AccentColor, ContrastWithWhite(b.AccentColor))
	}
	if b.Locale != "" && b.Locale != business.LocaleUS && b.Locale != business.LocaleGB {
		v.add("business.locale", "must be %s (dates as Mon, Mar 14, 2027) or %s (Mon 14 Mar 2027), got %q", business.LocaleUS, business.LocaleGB, b.Locale)
	}
}

// ContrastWithWhite is the WCAG contrast ratio of white against a
// "#rrggbb" colour, from 1 to 21; an unreadable colour gives 1.
func ContrastWithWhite(hex string) float64 {
	if !accentPattern.MatchString(hex) {
		return 1
	}
	n, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil {
		return 1
	}
	channel := func(c uint64) float64 {
		s := float64(c) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	l := 0.2126*channel(n>>16&0xff) + 0.7152*channel(n>>8&0xff) + 0.0722*channel(n&0xff)
	return 1.05 / (l + 0.05)
}

func (c Config) validateLocations(v *validator) {
	if len(c.Locations) == 0 {
		v.add("locations", "at least one location is required")
	}
	seen := map[string]string{}
	claim := func(field, kind, value string) {
		k := kind + ":" + strings.ToLower(value)
		if prev, ok := seen[k]; ok {
			v.add(field, "%q is already used by %s", value, prev)
			return
		}
		seen[k] = field
	}
	for i, l := range c.Locations {
		p := fmt.Sprintf("locations[%d]", i)
		if !slugPattern.MatchString(l.Slug) {
			v.add(p+".slug", "must be lowercase letters, digits and dashes (at most 40), got %q", l.Slug)
		} else {
			claim(p+".slug", "slug", l.Slug)
		}
		if v.required(p+".name", l.Name) {
			claim(p+".name", "name", l.Name)
			if len(l.Name) > 120 {
				v.add(p+".name", "must be at most 120 characters")
			}
		}
		if l.Domain != "" {
			claim(p+".domain", "domain", l.Domain)
		}
		v.phone(p+".phone", l.Phone)
		// A value copied from the business is checked once, there.
		if l.TimeZone != c.Business.TimeZone {
			v.zone(p+".time_zone", l.TimeZone)
		}
		if l.CheckinHour != c.Business.CheckinHour {
			v.clock(p+".checkin_hour", l.CheckinHour)
		}
		if !prefixPattern.MatchString(l.Prefix) {
			v.add(p+".reference_prefix", "must be 2 to 6 uppercase letters, got %q", l.Prefix)
		} else {
			claim(p+".reference_prefix", "prefix", l.Prefix)
		}
		v.url(p+".form_url", l.FormURL, false)
		v.closures(p+".closures", l.Closures)
		if len(l.Units) == 0 {
			v.add(p+".units", "at least one unit is required")
		}
		types := map[string]bool{}
		for j, u := range l.Units {
			up := fmt.Sprintf("%s.units[%d]", p, j)
			if !typePattern.MatchString(u.Type) {
				v.add(up+".type", "must be a lowercase word of at most 20 characters, got %q", u.Type)
			} else if types[u.Type] {
				v.add(up+".type", "%q is listed twice", u.Type)
			}
			types[u.Type] = true
			c.validateUnit(v, up, u)
		}
	}
}

func (c Config) validateUnit(v *validator, p string, u business.Unit) {
	if u.Count < 1 || u.Count > 1000 {
		v.add(p+".count", "must be from 1 to 1000")
	}
	amount := func(field, value string) {
		if value == "" {
			return
		}
		if strings.HasPrefix(strings.TrimSpace(value), "-") {
			v.add(p+"."+field, "must not be negative, got %q", value)
			return
		}
		n, err := money.Parse(value, c.Business.Currency)
		switch {
		case err != nil:
			v.add(p+"."+field, "%v", err)
		case n == 0 && field != "price":
			v.add(p+"."+field, "must be more than zero; leave it out to not sell by that rate")
		}
	}
	if u.ConfirmationMode != "" && u.ConfirmationMode != business.ConfirmManual && u.ConfirmationMode != business.ConfirmAuto {
		v.add(p+".confirmation_mode", "must be %q (the default) or %q, got %q", business.ConfirmManual, business.ConfirmAuto, u.ConfirmationMode)
	}
	c.validatePolicy(v, p, u)
	c.validateFees(v, p, u)
	switch u.Kind {
	case business.KindNight:
		amount("nightly_rate", u.NightlyRate)
		amount("weekly_rate", u.WeeklyRate)
		if u.NightlyRate == "" && u.WeeklyRate == "" {
			v.add(p+".nightly_rate", "a night unit needs nightly_rate, weekly_rate or both")
		}
		if u.MinNights < 1 || u.MinNights > c.Limits.MaxStayNights {
			v.add(p+".min_nights", "must be from 1 to limits.max_stay_nights (%d)", c.Limits.MaxStayNights)
		}
		if u.Price != "" || u.DurationMinutes != 0 || u.Opens != "" || u.Closes != "" || u.PlaceName != "" {
			v.add(p+".kind", "price, place_name, duration_minutes, opens and closes are for timed units only")
		}
		if c.Limits.MaxGuests > 0 && (u.Capacity < 0 || u.Capacity > c.Limits.MaxGuests) {
			v.add(p+".capacity", "must be from 1 to limits.max_guests (%d), or left out, got %d", c.Limits.MaxGuests, u.Capacity)
		}
		if len([]rune(u.Description)) > 500 {
			v.add(p+".description", "must be at most 500 characters")
		}
		if u.Photo != "" && !strings.HasPrefix(u.Photo, "https://") && (!strings.HasPrefix(u.Photo, "/") || strings.HasPrefix(u.Photo, "//")) {
			v.add(p+".photo", "must be an https:// address or a path on this server such as /photos/double.jpg, got %q", u.Photo)
		}
		if u.Photo != "" && strings.TrimSpace(u.PhotoAlt) == "" {
			v.add(p+".photo_alt", "is required with photo: say what the photo shows, for people who cannot see it")
		}
		if len(u.Amenities) > 12 {
			v.add(p+".amenities", "must list at most 12 amenities")
		}
		for i, a := range u.Amenities {
			if n := len([]rune(strings.TrimSpace(a))); n == 0 || n > 60 {
				v.add(fmt.Sprintf("%s.amenities[%d]", p, i), "must be a short phrase of 1 to 60 characters, such as \"Kitchenette\"")
			}
		}
	case business.KindTimed:
		if u.Price == "" {
			v.add(p+".price", "is required for a timed unit")
		}
		amount("price", u.Price)
		if u.DurationMinutes < 5 || u.DurationMinutes > 720 {
			v.add(p+".duration_minutes", "must be from 5 to 720")
		}
		v.clock(p+".opens", u.Opens)
		v.clock(p+".closes", u.Closes)
		if business.IsClock(u.Opens) && business.IsClock(u.Closes) && u.Closes <= u.Opens {
			v.add(p+".closes", "must be after opens")
		}
		if u.NightlyRate != "" || u.WeeklyRate != "" || u.MinNights != 0 {
			v.add(p+".kind", "nightly_rate, weekly_rate and min_nights are for night units only")
		}
		if u.PlaceName != "" && !placeWord.MatchString(u.PlaceName) {
			v.add(p+".place_name", "must be one lowercase word of 2 to 20 letters in the singular, such as \"ride\" or \"seat\", got %q", u.PlaceName)
		}
	default:
		v.add(p+".kind", "must be %q or %q, got %q", business.KindNight, business.KindTimed, u.Kind)
	}
}

func (c Config) validateLimits(v *validator) {
	l := c.Limits
	ranged := func(field string, value, lo, hi int) {
		if value < lo || value > hi {
			v.add("limits."+field, "must be from %d to %d, got %d", lo, hi, value)
		}
	}
	ranged("max_stay_nights", l.MaxStayNights, 1, 365)
	ranged("adjacency_gap_nights", l.AdjacencyGapNights, 0, 30)
	ranged("advance_days", l.AdvanceDays, 1, 1000)
	ranged("max_guests", l.MaxGuests, 1, 20)
	ranged("cancel_before_hours", l.CancelBeforeHours, 0, 720)
	// The adjustable booking ceilings share one range, as direct-booking.md
	// sets for chat settings.
	ranged("portfolio_email_hourly", l.PortfolioEmailHourly, 1, 1000)
	ranged("portfolio_email_daily", l.PortfolioEmailDaily, 1, 1000)
	ranged("location_email_hourly", l.LocationEmailHourly, 1, 1000)
	ranged("cancel_portfolio_daily", l.CancelPortfolioDaily, 1, 1000)
	ranged("location_pending", l.LocationPending, 1, 1000)
	ranged("portfolio_pending", l.PortfolioPending, 1, 1000)
}

func (c Config) validateMail(v *validator) {
	m := c.Mail
	switch m.Driver {
	case "dev":
	case "smtp":
		v.required("mail.smtp_host", m.SMTPHost)
		if m.SMTPPort < 1 || m.SMTPPort > 65535 {
			v.add("mail.smtp_port", "must be a TCP port")
		}
	default:
		v.add("mail.driver", `must be "dev" or "smtp", got %q`, m.Driver)
	}
	for _, f := range []struct{ field, addr string }{{"mail.from", m.From}, {"mail.staff", m.Staff}} {
		if v.required(f.field, f.addr) && !emailPattern.MatchString(f.addr) {
			v.add(f.field, "must be an email address, got %q", f.addr)
		}
	}
}

func (c Config) validateDeployment(v *validator) {
	d := c.Deployment
	// An empty context is allowed: the booking tools refuse with the
	// unknown-context sentence of direct-booking.md §16.
	if len(d.Hostnames) == 0 {
		v.add("deployment.hostnames", "at least one hostname is required")
	}
	for i, h := range d.Hostnames {
		if h == "" || strings.ContainsAny(h, "/:@ ") && !strings.HasPrefix(h, "[") {
			v.add(fmt.Sprintf("deployment.hostnames[%d]", i), "must be a bare host name without scheme or port, got %q", h)
		}
	}
	for i, h := range d.CustomHostnames {
		if !slices.Contains(d.Hostnames, h) {
			v.add(fmt.Sprintf("deployment.custom_hostnames[%d]", i), "%q must also be listed in deployment.hostnames", h)
		}
	}
	if d.PublicURL != "" && strings.HasPrefix(d.PublicURL, "/") {
		v.add("deployment.public_url", "must be an absolute http or https URL, got %q", d.PublicURL)
	} else {
		v.url("deployment.public_url", d.PublicURL, false)
		// Links to a host the server refuses would all answer 403.
		if u, err := url.Parse(d.PublicURL); d.PublicURL != "" && err == nil && u.Hostname() != "" &&
			!slices.ContainsFunc(d.Hostnames, func(h string) bool { return strings.EqualFold(strings.Trim(h, "[]"), u.Hostname()) }) {
			v.add("deployment.public_url", "its host %q must also be listed in deployment.hostnames", u.Hostname())
		}
	}
}

// dayKeys are the office_hours keys by weekday.
var dayKeys = [...]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// joinErrors is errors.Join that returns a nil interface for no errors.
func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

func (c Config) validateORP(v *validator) {
	o := c.ORP
	if len(o.Name) > 120 {
		v.add("orp.name", "must be at most 120 characters")
	}
	if len(o.Description) > 1000 {
		v.add("orp.description", "must be at most 1000 characters")
	}
	if o.SweepMinutes < 0 || o.SweepMinutes > 24*60 {
		v.add("orp.sweep_minutes", "must be from 0 to 1440, got %d", o.SweepMinutes)
	}
	if o.ClicksPerMinute < 0 {
		v.add("orp.clicks_per_minute", "must be 0 (the default, 120) or more, got %d", o.ClicksPerMinute)
	}
	switch o.ClaimsCheck {
	case "", "real", "stub", "none":
	default:
		v.add("orp.claims_check", "must be real, stub or none, got %q", o.ClaimsCheck)
	}
	if o.ReferralBps < 0 || o.ReferralBps > 10000 {
		v.add("orp.referral_bps", "must be from 0 (no referral offer) to 10000, got %d", o.ReferralBps)
	}
	if o.StripeWebhookSecretEnv != "" && o.StripeWebhookSecretFile != "" {
		v.add("orp.stripe_webhook_secret_env", "give stripe_webhook_secret_env or stripe_webhook_secret_file, not both")
	}
	if o.ResolverTokenEnv != "" && o.ResolverTokenFile != "" {
		v.add("orp.resolver_token_env", "give resolver_token_env or resolver_token_file, not both")
	}
	for i, d := range o.Sites {
		if !domainName.MatchString(d) {
			v.add(fmt.Sprintf("orp.sites[%d]", i), "must be a lowercase domain name such as shop.example.com, got %q", d)
		}
	}
	for i, d := range o.BlockedDomains {
		if !domainName.MatchString(d) {
			v.add(fmt.Sprintf("orp.blocked_domains[%d]", i), "must be a lowercase domain name such as evil.example, got %q", d)
		}
	}
	if o.BusinessParty != "" && !strings.HasPrefix(o.BusinessParty, "orp:") {
		v.add("orp.business_party", "must be a party id of this host (orp:host/id), got %q", o.BusinessParty)
	}
	if o.MaxReportMinor < 0 || o.MaxReportMinor > maxExactInteger {
		v.add("orp.max_report_minor", "must be from 0 (the default) to 9007199254740991, got %d", o.MaxReportMinor)
	}
	for i, p := range c.Deployment.TrustedProxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			v.add(fmt.Sprintf("deployment.trusted_proxies[%d]", i), "must be an IP address or a CIDR range such as 10.0.0.0/8, got %q", p)
		}
	}
}

func (c Config) validateServer(v *validator) {
	s := c.Server
	if _, err := ParseLogLevel(s.LogLevel); err != nil {
		v.add("server.log_level", "%v", err)
	}
	if s.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(s.MetricsAddr); err != nil {
			v.add("server.metrics_addr", "must be HOST:PORT such as 127.0.0.1:9090, got %q", s.MetricsAddr)
		}
	}
	if s.MetricsTokenEnv != "" && s.MetricsTokenFile != "" {
		v.add("server.metrics_token_env", "give metrics_token_env or metrics_token_file, not both")
	}
	if s.ConnectionsPerAddress < 1 || s.ConnectionsPerAddress > 100000 {
		v.add("server.connections_per_address", "must be from 1 to 100000, got %d", s.ConnectionsPerAddress)
	}
}

// ParseLogLevel reads a log level name.
func ParseLogLevel(name string) (slog.Level, error) {
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf(`must be "debug", "info", "warn" or "error", got %q`, name)
}

// domainName is a lowercase DNS name with at least two labels.
var domainName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$`)

// maxExactInteger is the largest integer an I-JSON number holds exactly.
const maxExactInteger = 1<<53 - 1

var (
	platformPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)
	keyHashPattern  = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

func (c Config) validateUSP(v *validator) {
	u := c.USP
	switch u.Mode {
	case "", USPStandalone, USPUCPNative:
	default:
		v.add("usp.mode", "must be %q (the default) or %q, got %q", USPStandalone, USPUCPNative, u.Mode)
	}
	if u.ProfileCacheEntries < 0 || u.ProfileCacheEntries > 1_000_000 {
		v.add("usp.profile_cache_entries", "must be from 0 (the default, 1024) to 1000000, got %d", u.ProfileCacheEntries)
	}
	if u.ProfileCacheMaxSeconds != 0 && (u.ProfileCacheMaxSeconds < 60 || u.ProfileCacheMaxSeconds > 86400) {
		v.add("usp.profile_cache_max_seconds", "must be 0 (the default, 3600) or from 60 to 86400, got %d", u.ProfileCacheMaxSeconds)
	}
	if u.ProfileMaxBytes != 0 && (u.ProfileMaxBytes < 128<<10 || u.ProfileMaxBytes > 8<<20) {
		v.add("usp.profile_max_bytes", "must be 0 (the default, 262144) or from 131072 to 8388608, got %d", u.ProfileMaxBytes)
	}
	if u.ProfileStaleMaxSeconds < -1 || u.ProfileStaleMaxSeconds > 7*86400 {
		v.add("usp.profile_stale_max_seconds", "must be -1 (never), 0 (the default, 21600) or up to 604800, got %d", u.ProfileStaleMaxSeconds)
	}
	if u.KeyLeadMinutes < 0 || u.KeyLeadMinutes > 7*24*60 {
		v.add("usp.key_lead_minutes", "must be from 0 (the default, 60) to 10080, got %d", u.KeyLeadMinutes)
	}
	if u.KeyGraceDays != 0 && (u.KeyGraceDays < 7 || u.KeyGraceDays > 365) {
		v.add("usp.key_grace_days", "must be 0 (the default, 7) or from 7 to 365, got %d", u.KeyGraceDays)
	}
	names := map[string]bool{}
	hashes := map[string]string{}
	for i, p := range u.Platforms {
		f := fmt.Sprintf("usp.platforms[%d]", i)
		if !platformPattern.MatchString(p.Name) {
			v.add(f+".name", "must be 1 to 40 lowercase letters, digits, _ or -, starting with a letter or digit, got %q", p.Name)
		} else if names[p.Name] {
			v.add(f+".name", "%q is registered twice", p.Name)
		}
		names[p.Name] = true
		if len(p.APIKeyHashes) == 0 {
			v.add(f+".api_key_hashes", "needs at least one key hash")
		}
		for j, h := range p.APIKeyHashes {
			hf := fmt.Sprintf("%s.api_key_hashes[%d]", f, j)
			switch {
			case !keyHashPattern.MatchString(h):
				v.add(hf, `must be "sha256:" and 64 lowercase hex digits`)
			case hashes[h] != "":
				v.add(hf, "is also a key of %s", hashes[h])
			default:
				hashes[h] = fmt.Sprintf("%s.api_key_hashes[%d]", f, j)
			}
		}
		if p.WebhookURL != "" {
			if w, err := url.Parse(p.WebhookURL); err != nil || (w.Scheme != "https" && w.Scheme != "http") || w.Host == "" || w.User != nil || w.Fragment != "" {
				v.add(f+".webhook_url", "must be an absolute http(s) URL without credentials or fragment, got %q", p.WebhookURL)
			} else if w.Scheme == "http" && (!c.AllowPrivate() || !loopbackHost(w.Hostname())) {
				v.add(f+".webhook_url", "must be https (plain http only to a loopback host with outbound.allow_private, for development), got %q", p.WebhookURL)
			}
		}
	}
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// placeWord is what a timed unit's place_name may be.
var placeWord = regexp.MustCompile(`^[a-z]{2,20}$`)

// validateFees checks a unit's fee list: each fee named once, a
// positive amount, per a stay, a night or a guest. Only night units carry
// fees: a timed service's price is the whole price of a place.
func (c Config) validateFees(v *validator, p string, u business.Unit) {
	if len(u.Fees) == 0 {
		return
	}
	if u.Kind == business.KindTimed {
		v.add(p+".fees", "are for units sold by the night only; put a timed unit's whole price in price")
		return
	}
	if _, err := u.Charges(c.Business.Currency); err != nil {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			key, msg, _ := strings.Cut(e.Error(), ": ")
			v.add(p+".fees"+key, "%s", msg)
		}
	}
}

// validatePolicy checks a unit's payment and cancellation terms; a unit
// whose price is zero takes no money, so it cannot ask for any.
func (c Config) validatePolicy(v *validator, p string, u business.Unit) {
	t, err := u.Policy.Terms(c.Business.Currency)
	if err != nil {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			key, msg, _ := strings.Cut(e.Error(), ": ")
			v.add(p+".policy."+key, "%s", msg)
		}
		return
	}
	if u.Kind != business.KindTimed || u.Price == "" {
		return
	}
	price, err := money.Parse(u.Price, c.Business.Currency)
	switch {
	case err != nil:
	case price == 0 && t.Timing != business.PayAtService:
		v.add(p+".policy.payment", "a unit whose price is zero takes no money; leave payment out")
	case t.DepositKind == business.DepositFixed && t.DepositValue > price:
		v.add(p+".policy.deposit", "must not be more than the price (%s), got %q", u.Price, u.Policy.Deposit)
	}
}
