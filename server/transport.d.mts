export declare const TRANSPORT_ERRORS: Record<string, [number, string, string]>
export declare function clientErrorResponse(code: string | undefined, requestId?: string): string
export declare function answerClientError(error: NodeJS.ErrnoException, socket: import('node:net').Socket): void
export declare function capRequestBody(req: import('node:stream').Readable, limit: number): void
export declare function originFormTarget(req: import('node:http').IncomingMessage, ownHosts: Set<string>): string | null
export declare function ownAuthorities(server: { hostname: string; port: number; publicBaseUrl?: string; queryAppHost?: string }): Set<string>
export declare function answerForeignTarget(socket: import('node:net').Socket, requestId?: string): void
