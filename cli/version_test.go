package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	mk := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	if got := versionFromBuildInfo(mk("v1.2.3", "vcs.revision", "abc")); got != "v1.2.3" {
		t.Errorf(`versionFromBuildInfo(mk("v1.2.3", "vcs.revision", "abc")) = %q, want %q`, got, "v1.2.3")
	}
	if got := versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "false")); got != "0123456789ab" {
		t.Errorf(`versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "false")) = %q, want %q`, got, "0123456789ab")
	}
	if got := versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "true")); got != "0123456789ab-dirty" {
		t.Errorf(`versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "true")) = %q, want %q`, got, "0123456789ab-dirty")
	}
	if got := versionFromBuildInfo(mk("")); got != "devel" {
		t.Errorf(`versionFromBuildInfo(mk("")) = %q, want %q`, got, "devel")
	}
}
