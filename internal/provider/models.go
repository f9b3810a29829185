package provider

import (
	"context"
	"errors"
)

// ModelLister is a provider that can list the models its service offers
// (/model NAME checks a name against it).
type ModelLister interface {
	// ListModels returns the ids of the models the service offers.
	ListModels(ctx context.Context) ([]string, error)
}

// ErrNoModelList says a provider cannot list its models.
var ErrNoModelList = errors.New("the provider cannot list its models")

// ListModels lists p's models, looking through wrappers that say what
// they wrap (an Unwrap() Provider method).
func ListModels(ctx context.Context, p Provider) ([]string, error) {
	for p != nil {
		if l, ok := p.(ModelLister); ok {
			return l.ListModels(ctx)
		}
		u, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			break
		}
		p = u.Unwrap()
	}
	return nil, ErrNoModelList
}
