/** Discord ids are 17–20 digit decimal strings ("snowflakes"). @discordjs/rest buckets routes by 17–19 digits. */
export const SNOWFLAKE = /^\d{17,20}$/;

export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && SNOWFLAKE.test(value);
}
