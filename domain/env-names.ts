/** Names a process environment can carry safely (a "=" or NUL in a name would corrupt it): secret names are checked with it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
