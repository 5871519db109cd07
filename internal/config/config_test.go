package config

import (
	"slices"
	"testing"

	"github.com/honehq/hone"
)

func TestFromEnv(t *testing.T) {
	t.Setenv("HONE_DATA_DIR", "/var/lib/hone")
	t.Setenv("HONE_PROMPT_FILE", "a.md, b.md,,")
	t.Setenv("HONE_MESSAGE_LIMIT", "4096")
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.DSN() != "/var/lib/hone/hone.db" || c.MessageLimit != 4096 || !slices.Equal(c.Prompts, []string{"a.md", "b.md"}) ||
		c.Addr != DefaultAddr || c.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Fatalf("config = %+v", c)
	}
	t.Setenv("HONE_DATABASE_URL", "postgres://u:secret@db/hone")
	c, _ = FromEnv()
	if c.DSN() != "postgres://u:secret@db/hone" || c.DatabaseName() != "postgres postgres://…@db/hone" {
		t.Fatalf("dsn %q name %q", c.DSN(), c.DatabaseName())
	}
}

func TestFromEnvRejectsBadValues(t *testing.T) {
	for name, value := range map[string]string{
		"HONE_MAX_BODY_BYTES": "lots",
		"HONE_MESSAGE_LIMIT":  "10",
		"HONE_LLM_TIMEOUT":    "soon",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := FromEnv()
			if err == nil || hone.ErrorCode(err) != hone.EINVALID {
				t.Fatalf("%s=%s: err = %v", name, value, err)
			}
		})
	}
	c := Config{DatabaseURL: "mysql://x", MaxBodyBytes: 1}
	if err := c.Validate(); hone.ErrorField(err) != "HONE_DATABASE_URL" {
		t.Fatalf("Validate = %v", err)
	}
}
