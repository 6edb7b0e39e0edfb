// The window's short glossary (top bar): the verdicts, confidence levels, each check and the heatmap, in the same
// words every screen uses (renderer/lib/words.ts), so a reviewer can check a term without leaving the case.
import { GLOSSARY } from '../lib/words.js';

export function Glossary(): React.JSX.Element {
  return (
    <details className="glossary" data-testid="glossary">
      <summary>Glossary</summary>
      <div className="glossary-panel">
        <dl>
          {GLOSSARY.map((entry) => (
            <div key={entry.term}>
              <dt>{entry.term}</dt>
              <dd>{entry.meaning}</dd>
            </div>
          ))}
        </dl>
      </div>
    </details>
  );
}
