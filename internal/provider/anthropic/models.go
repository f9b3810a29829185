package anthropic

import (
	"context"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atomic-agent/atomic/internal/provider"
)

var _ provider.ModelLister = (*Provider)(nil)

// ListModels lists the models the service offers, every page of them
// (GET /v1/models through the SDK's Models.List).
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	var ids []string
	iter := p.client.Models.ListAutoPaging(ctx, sdk.ModelListParams{Limit: sdk.Int(1000)})
	for iter.Next() {
		ids = append(ids, iter.Current().ID)
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("anthropic: listing models: %w", err)
	}
	return ids, nil
}
