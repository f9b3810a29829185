package chat

import (
	"context"
	"fmt"

	"github.com/atomic-agent/atomic/internal/provider"
)

var _ provider.ModelLister = (*Provider)(nil)

// ListModels lists the models the service offers (GET /models through
// the SDK's Models.List).
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	var ids []string
	iter := p.client.Models.ListAutoPaging(ctx)
	for iter.Next() {
		ids = append(ids, iter.Current().ID)
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("openai: listing models: %w", err)
	}
	return ids, nil
}
