package remote

import (
	"errors"
	"fmt"
)

// CancelAll tells the workers to cancel every task of this lead still
// under way and returns once the NATS server has the cancels, or with why
// it could not. A lead that stops calls it before it closes its
// connection, so no worker runs on until the lead's heartbeat is missed;
// each task's Run, which sends its own cancel when its context ends, may
// send another (a worker takes one). A claim that comes after it is
// refused.
func (d *Dispatcher) CancelAll() error {
	d.mu.Lock()
	fs := make([]*flight, 0, len(d.flights))
	for _, f := range d.flights {
		fs = append(fs, f)
	}
	d.mu.Unlock()
	if len(fs) == 0 {
		return nil
	}
	// One refused publish does not keep the others' cancels from going out.
	var errs []error
	for _, f := range fs {
		f.mu.Lock()
		f.done = true
		f.mu.Unlock()
		if err := d.nc.Publish(cancelSubject(d.id, f.task.ID), nil); err != nil {
			errs = append(errs, fmt.Errorf("cancelling task %s on its worker: %w", f.task.ID, err))
		}
	}
	if err := d.nc.Flush(); err != nil {
		errs = append(errs, fmt.Errorf("cancelling %d task(s) on the workers: %w", len(fs), err))
	}
	return errors.Join(errs...)
}
