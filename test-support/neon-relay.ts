import { connect } from 'node:net'
import { neonConfig } from '@neondatabase/serverless'
import { WebSocketServer } from 'ws'

// A loopback WebSocket → TCP relay standing in for Neon's proxy, so the neon-serverless driver
// talks to a plain local Postgres. The driver is pointed at it through neonConfig; every
// connection, whatever the Neon host name, reaches `target`.
export async function startNeonRelay(target: { host: string; port: number }) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  server.on('connection', (ws) => {
    const socket = connect(target.port, target.host)
    ws.binaryType = 'nodebuffer'
    ws.on('message', (data: Buffer) => socket.write(data))
    socket.on('data', (data) => ws.send(data))
    const close = () => {
      socket.destroy()
      ws.close()
    }
    ws.on('close', close)
    ws.on('error', close)
    socket.on('close', close)
    socket.on('error', close)
  })
  const { port } = server.address() as { port: number }
  neonConfig.wsProxy = () => `127.0.0.1:${port}/`
  neonConfig.useSecureWebSocket = false
  neonConfig.pipelineTLS = false
  neonConfig.pipelineConnect = false
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}
