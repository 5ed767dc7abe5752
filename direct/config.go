package direct

import (
	"frontdesk/business"
	"frontdesk/message"
)

// Config is what direct booking reads of the owner's file, handed over
// by the command: the business with its locations and limits, the mail
// addresses its notices use, and the deployment evidence its tools check
// before acting.
type Config struct {
	business.Portfolio
	Mail       message.Addresses
	Deployment business.Deployment
}
