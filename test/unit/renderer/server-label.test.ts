// The header's word on where files go: this computer, or the team server named by its host.
import { describe, expect, it } from 'vitest';
import { serverLabel } from '../../../renderer/lib/server-label.js';

describe('server label', () => {
  it('names a team server by its host and port', () => {
    expect(serverLabel({ kind: 'team' }, 'https://veracity.claims.example')).toMatchObject({ kind: 'team', text: 'Team server · veracity.claims.example' });
    const local = serverLabel({ kind: 'team' }, 'http://127.0.0.1:8080');
    expect(local.text).toBe('Team server · 127.0.0.1:8080');
    expect(local.detail).toMatch(/sent to the team server at 127\.0\.0\.1:8080/);
  });

  it('says this computer for the desktop core, whatever its port', () => {
    expect(serverLabel({ kind: 'desktop' }, 'http://127.0.0.1:43123')).toEqual({
      kind: 'desktop',
      text: 'This computer',
      detail: expect.stringMatching(/analysed on this computer/),
    });
  });
});
