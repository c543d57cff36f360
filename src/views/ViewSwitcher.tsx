import type { ViewId } from '../state/view-state.ts';

const VIEW_TITLES: Record<ViewId, string> = {
  overview: 'Overview',
  charts: 'Charts',
  history: 'History',
};

/** The views the data offers; the page opens on the one that fits (src/display/page-views.ts), the user's choice is kept in the link. */
export function ViewSwitcher({ offered, view, onChange }: { offered: readonly ViewId[]; view: ViewId; onChange: (view: ViewId) => void }) {
  return (
    <nav className="view-switcher" aria-label="views" data-testid="view-switcher" data-view={view}>
      {offered.map((id) => (
        <button key={id} type="button" aria-pressed={view === id} className={view === id ? 'view active' : 'view'} data-view={id} onClick={() => onChange(id)}>
          {VIEW_TITLES[id]}
        </button>
      ))}
    </nav>
  );
}
