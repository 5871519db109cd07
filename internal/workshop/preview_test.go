package workshop_test

import (
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func TestTracePreviewListsTheFirstTracesToFacilitators(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		f.importTraces(5)
		list, err := f.svc.TracePreview(f.as(f.facilitator), f.ws.ID, 3)
		if err != nil || len(list) != 3 || list[0].ID != "t1" || list[2].ID != "t3" || list[1].InputText != "question t2" {
			t.Fatalf("the facilitator's preview of 3: %+v %v", list, err)
		}
		if list, err := f.svc.TracePreview(admin, f.ws.ID, 10); err != nil || len(list) != 5 {
			t.Fatalf("the admin's preview of 10: %d traces, %v", len(list), err)
		}
		if _, err := f.svc.TracePreview(f.as(f.alice), f.ws.ID, 3); hone.ErrorCode(err) != hone.EFORBIDDEN {
			t.Errorf("a participant previewed the traces: %v", err)
		}
	})
}
