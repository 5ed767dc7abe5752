package config

import (
	"fmt"
	"os"
	"strings"
)

// LoadSecrets reads the SMTP password, the metrics token and the ORP
// secrets from the environment variables or files the config names; secrets never sit in
// the file itself. A mail driver that would have to authenticate without
// its password refuses to start: every booking code would fail to send.
func (c *Config) LoadSecrets() error {
	m := &c.Mail
	pw, err := secret("mail.smtp_password", m.PasswordEnv, m.PasswordFile)
	if err != nil {
		return err
	}
	m.SMTPPassword = pw
	if m.Driver == "smtp" && m.SMTPUser != "" && m.SMTPPassword == "" {
		where := "mail.smtp_password_env or mail.smtp_password_file names none"
		if m.PasswordEnv != "" {
			where = fmt.Sprintf("the environment variable %s (mail.smtp_password_env) is not set", m.PasswordEnv)
		} else if m.PasswordFile != "" {
			where = fmt.Sprintf("the file %s (mail.smtp_password_file) is empty", m.PasswordFile)
		}
		return fmt.Errorf("mail: smtp_username is %q but there is no password: %s. Without it the mail server refuses every message, so no booking code could be sent; set the password, or use driver = \"dev\" to keep mail at /dev/mail", m.SMTPUser, where)
	}
	s := &c.Server
	if s.MetricsToken, err = secret("server.metrics_token", s.MetricsTokenEnv, s.MetricsTokenFile); err != nil {
		return err
	}
	if (s.MetricsTokenEnv != "" || s.MetricsTokenFile != "") && s.MetricsToken == "" {
		return fmt.Errorf("server: metrics_token_env or metrics_token_file is set but holds no token; /metrics would be open")
	}
	o := &c.ORP
	if o.StripeWebhookSecret, err = secret("orp.stripe_webhook_secret", o.StripeWebhookSecretEnv, o.StripeWebhookSecretFile); err != nil {
		return err
	}
	if o.ResolverToken, err = secret("orp.resolver_token", o.ResolverTokenEnv, o.ResolverTokenFile); err != nil {
		return err
	}
	return c.loadSplitSecret()
}

// secret reads a value from the named environment variable or file.
func secret(name, env, file string) (string, error) {
	switch {
	case env != "":
		return os.Getenv(env), nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s_file: %w", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return "", nil
}
