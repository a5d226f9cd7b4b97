import { int, text } from '../parsers.js';
import { def } from '../setting.js';

/** The local runtime's listeners (`npm start`; `--port` and `--admin-port` win over them). */
export const LOCAL_SETTINGS = {
  port: def({
    env: 'PORT',
    default: 3000,
    parse: int(0, 65535),
    readBy: [],
    local: true,
    doc: 'local HTTP port (the one to expose to GitHub)',
  }),
  adminPort: def({
    env: 'ADMIN_PORT',
    default: undefined,
    defaultText: 'PORT + 1',
    parse: int(0, 65535),
    readBy: [],
    local: true,
    doc: 'local operator port (`/decisions`, `/report-facts`, `/replay`, `/ec2-events`), on 127.0.0.1 only, token required',
  }),
  host: def({
    env: 'HOST',
    default: '127.0.0.1',
    parse: text,
    readBy: [],
    local: true,
    doc: 'address the local HTTP port listens on',
  }),
} as const;
