/**
 * Which REST answers mean the server was not reached, as opposed to a refusal: the request
 * failed before an answer (a dropped connection, a server restarting: status 0), or a proxy or
 * the server could not serve it for now (502, 503, 504). Such a write is kept and made again once
 * the connection is back; any other error is the server's verdict.
 */

/** Whether the answer of a request (its HTTP status) says that the server was not reached. */
export function notReached(answer: { status: number }): boolean {
  return answer.status === 0 || answer.status === 502 || answer.status === 503 || answer.status === 504;
}
