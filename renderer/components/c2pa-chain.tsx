// The Content Credentials (C2PA) manifest chain of one file, as a specialist reads it: from the active manifest back
// through its ingredients' manifests, each with its signer and whether the configured anchors trust it, its signing
// time, tool, actions and ingredients. One component for the card (folded) and the evidence viewer (open).
import { Fragment } from 'react';
import type { Dimension } from '../../src/api/schemas.js';
import { c2paChainOf, c2paManifestRows, c2paManifestTitle } from '../lib/words.js';

interface Props {
  dimensions: readonly Dimension[];
  /** Open from the start (the viewer); folded on the card. */
  open?: boolean;
}

const localTime = (iso: string) => new Date(iso).toLocaleString();

export function C2paChain({ dimensions, open = false }: Props): React.JSX.Element | null {
  const chain = c2paChainOf(dimensions);
  if (!chain) return null;
  return (
    <details className="c2pa-chain" data-testid="c2pa-chain" open={open}>
      <summary>
        Content Credentials: {chain.length} manifest{chain.length === 1 ? '' : 's'}
      </summary>
      <ol>
        {chain.map((m, i) => (
          <li key={m.label || i} data-testid="c2pa-manifest" data-valid={m.valid} data-trust={m.signer.trust}>
            <p className="c2pa-manifest-title">{c2paManifestTitle(chain, i)}</p>
            <dl>
              {c2paManifestRows(m, localTime).map(([label, value]) => (
                <Fragment key={label}>
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </Fragment>
              ))}
            </dl>
          </li>
        ))}
      </ol>
    </details>
  );
}
