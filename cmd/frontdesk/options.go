package main

import (
	"frontdesk/booking"
	"frontdesk/config"
	"frontdesk/mail"
	"frontdesk/web"
)

// The options each service is handed, built from the file: no package
// but this command reads config.Config.

// bookingConfig is what direct booking reads of the file.
func bookingConfig(c config.Config) booking.Config {
	return booking.Config{Portfolio: c.Portfolio, Mail: c.Mail.Addresses, Deployment: c.Deployment.Deployment}
}

// smtpServer is the submission server the [mail] settings name.
func smtpServer(c config.Mail) mail.Server {
	return mail.Server{Host: c.SMTPHost, Port: c.SMTPPort, User: c.SMTPUser, Password: c.SMTPPassword, From: c.From}
}

// webConfig is what the guest site and the staff screen read of the file.
func webConfig(c config.Config) web.Config {
	return web.Config{Portfolio: c.Portfolio, PublicURL: c.Deployment.PublicURL, ORPEnabled: c.ORP.Enabled, RemembersReferrals: c.RemembersReferrals()}
}
