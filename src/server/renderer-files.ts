// Whether a built renderer is there to serve: asked by the routes that serve it and by `veracity serve`, which
// prints the app's address only when there is an app.
import fs from 'node:fs';

export function rendererAvailable(rendererDir: string): boolean {
  return fs.existsSync(`${rendererDir}/index.html`);
}
