// The demo's media: small real files from __test__/fixtures/file-type (MIT, see its README) and
// two images made by a real PNG encoder (pngjs): a 20,000 px tall screenshot and a 4.5 MB photo.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pngjs from 'pngjs'

const { PNG } = pngjs
const here = path.dirname(fileURLToPath(import.meta.url))
const fixtures = path.join(here, '..', '__test__', 'fixtures', 'file-type')

export const fixture = (name) => fs.readFileSync(path.join(fixtures, name))

/** An RGB PNG of width x height whose pixels `paint(x, y, rgb)` sets. */
function encodePng(width, height, paint) {
  const options = { width, height, colorType: 2, inputColorType: 2, inputHasAlpha: false }
  const png = new PNG(options)
  png.data = Buffer.alloc(width * height * 3)
  const rgb = [0, 0, 0]
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      paint(x, y, rgb)
      const i = (y * width + x) * 3
      png.data[i] = rgb[0]
      png.data[i + 1] = rgb[1]
      png.data[i + 2] = rgb[2]
    }
  }
  return PNG.sync.write(png, options)
}

/** A full-page screenshot 720 x 20,000 px: rows of a long web page (about 76 KB). */
export function tallScreenshot() {
  return encodePng(720, 20_000, (x, y, rgb) => {
    const row = Math.floor(y / 40)
    const text = x > 40 && x < 40 + ((row * 97) % 600) && y % 40 > 14 && y % 40 < 26
    rgb[0] = text ? 40 : row % 2 ? 245 : 232
    rgb[1] = text ? 40 : row % 2 ? 245 : 236
    rgb[2] = text ? 48 : 250
  })
}

/** A 1236 x 1236 px photo of 4.5 MB: grain a PNG encoder cannot squeeze, as in a real photo. */
export function largePhoto() {
  let seed = 2026
  return encodePng(1236, 1236, (x, y, rgb) => {
    seed = (seed * 1103515245 + 12345) >>> 0
    const grain = seed >>> 24
    rgb[0] = (x / 5 + grain) & 0xff
    rgb[1] = (y / 5 + (grain >> 1)) & 0xff
    rgb[2] = (128 + grain) & 0xff
  })
}

/** The two generated images, made once and kept in `dir` (the demo passes it to every server it starts). */
export function generatedImages(dir) {
  const made = {}
  for (const [name, make] of [
    ['tall-screenshot.png', tallScreenshot],
    ['photo.png', largePhoto],
  ]) {
    const file = dir ? path.join(dir, name) : null
    if (file && fs.existsSync(file)) made[name] = fs.readFileSync(file)
    else {
      made[name] = make()
      if (file) fs.writeFileSync(file, made[name])
    }
  }
  return made
}
