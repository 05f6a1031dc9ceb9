/** The soak's settings: how long it runs (SOAK_SECONDS, SOAK_IDLE_SECONDS shorten it for a try), its connections and ports. */
export const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
export const IDLE_SECONDS = Number(process.env.SOAK_IDLE_SECONDS ?? 120);
export const V1_CONNECTIONS = 12;
export const SQL_CONNECTIONS = 4;
export const PORT = 4395;
export const BARE_PORT = 4396;
