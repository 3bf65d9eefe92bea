export * from 'mcp-content-wasm32-wasi'
