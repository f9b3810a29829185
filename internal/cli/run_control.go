package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/atomic-agent/atomic/internal/headless"
	"github.com/atomic-agent/atomic/internal/permission"
)

// controls answer Claude Code's control requests of an --input-format
// stream-json run on out (the run's own stdout, locked by line).
func (o *opened) controls(out io.Writer) *headless.Controls {
	gate, rt := o.s.gate, o.rt
	started := gate.Mode() // bypassPermissions only when the run began in it, as Claude Code asks
	return &headless.Controls{
		Out: out,
		Initialize: func() map[string]any {
			cmds := []map[string]any{}
			for _, c := range o.s.commands.All() {
				cmds = append(cmds, map[string]any{"name": c.Name, "description": c.Description, "argumentHint": c.ArgumentHint})
			}
			return map[string]any{"commands": cmds, "current_permission_mode": string(gate.Mode()), "pid": os.Getpid(),
				"models": []map[string]any{{"value": rt.Model(), "displayName": rt.Model()}}}
		},
		Interrupt: func() {
			if rt.Busy() {
				rt.Interrupt("interrupt control request")
			}
		},
		SetPermissionMode: func(mode string) error {
			m, err := permission.ParseMode(mode)
			if err != nil {
				return err
			}
			if m == permission.BypassPermissions && started != permission.BypassPermissions {
				return errors.New("bypassPermissions needs the run to start with --dangerously-skip-permissions")
			}
			gate.SetMode(m)
			return nil
		},
		SetModel: func(model string) error {
			if model == "" {
				return fmt.Errorf("set_model needs a model")
			}
			rt.SwitchModel(model)
			return nil
		},
	}
}
