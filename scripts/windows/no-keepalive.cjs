'use strict'
// Preloaded (--require) into the Windows Node that scripts/check-windows.mjs runs under
// Wine 8.0: there, a TCP socket given keep-alive before it connects fails to connect
// (libuv: `connect UNKNOWN`), and fetch (undici) always asks for keep-alive, so every
// provider SDK test against its local endpoint would fail for Wine's sake. Keep-alive
// only matters to idle connections, which these tests never hold.
const net = require('node:net')
net.Socket.prototype.setKeepAlive = function setKeepAlive() {
  return this
}
