/** Names from a request (headers, query, path) are data: a table of them inherits nothing, `constructor` included. */
export const nameTable = (): Record<string, string> => Object.create(null);
