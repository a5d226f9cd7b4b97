/** A setting that cannot be used; the message names the setting at fault. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
