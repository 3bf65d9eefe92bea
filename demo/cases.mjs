// The demo's cases: one content part each, as a real server would send it (the cases of the
// source documents). The two large images are made by a real PNG encoder (images.mjs).
import { fixture } from './images.mjs'

const b64 = (bytes) => Buffer.from(bytes).toString('base64')
const blob = (uri, mimeType, bytes) => ({ type: 'resource', resource: { uri, mimeType, blob: b64(bytes) } })
const image = (mimeType, bytes) => ({ type: 'image', data: b64(bytes), mimeType })

/** Tool name -> [what it stands for, its one content part from the generated images]. In the order the demo shows them. */
export const demoCases = {
  markdown_blob: [
    'a Jira attachment as a markdown blob',
    () => blob('file:///jira/PROJ-42/README.md', 'text/markdown', Buffer.from('# Crash on save\n\nSteps:\n1. open a file\n2. press Ctrl+S\n')),
  ],
  patch_blob: [
    'a patch as a blob',
    () =>
      blob(
        'file:///jira/PROJ-42/fix.patch',
        'text/x-patch',
        Buffer.from('--- a/save.c\n+++ b/save.c\n@@ -1 +1 @@\n-  write(fd, buf, n);\n+  if (n > 0) write(fd, buf, n);\n'),
      ),
  ],
  png_chart: ['a PNG chart', () => image('image/png', fixture('fixture.png'))],
  pdf_report: ['a PDF report', () => blob('file:///reports/q3.pdf', 'application/pdf', fixture('fixture.pdf'))],
  parquet_table: ['a parquet table', () => blob('file:///exports/orders.parquet', 'application/vnd.apache.parquet', fixture('fixture.parquet'))],
  svg_logo: [
    'an svg logo',
    () =>
      image(
        'image/svg+xml',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="30" fill="#d97757"/></svg>\n'),
      ),
  ],
  mislabelled_photo: ['a JPEG the server calls a PNG', () => image('image/png', fixture('fixture.jpg'))],
  corrupt_png: ['a corrupt PNG', () => image('image/png', fixture('fixture-corrupt.png'))],
  audio_clip: ['a voice memo (wav)', () => ({ type: 'audio', data: b64(fixture('fixture.wav')), mimeType: 'audio/wav' })],
  tall_screenshot: ['a full-page screenshot, 20,000 px tall', (images) => image('image/png', images['tall-screenshot.png'])],
  large_photo: ['a 4.5 MB photo', (images) => image('image/png', images['photo.png'])],
}
