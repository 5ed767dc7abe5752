package web

import "frontdesk/business"

// Config is what the guest site and the staff screen read of the owner's
// file, handed over by the command.
type Config struct {
	business.Portfolio
	// PublicURL is where guests and agents reach this server, such as
	// "https://book.example.com"; empty when the file names none.
	PublicURL string
	// ORPEnabled is whether the ORP host runs, which the privacy page
	// discloses.
	ORPEnabled bool
	// RemembersReferrals is whether the booking form keeps a partner's
	// click id in the referral cookie for ReferralCookieDays.
	RemembersReferrals bool
}

// ReferralCookieDays is how long the referral cookie lasts: the
// attribution window of the business's own referral offer (P30D). A
// click older than a deal's window attributes nothing however long the
// cookie keeps it.
const ReferralCookieDays = 30
