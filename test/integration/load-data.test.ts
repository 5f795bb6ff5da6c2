import type { PoolConnection } from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { loadDataField, replaceRows } from '../../db/load-data';
import { config } from '../../lib/config';

let handle: DatabaseHandle;
let connection: PoolConnection;

beforeAll(async () => {
  handle = createDatabase(config.mysql);
  connection = await handle.pool.getConnection();
  // A temporary table: the connection's own, gone with it.
  await connection.query(
    'CREATE TEMPORARY TABLE load_probe (id INT NOT NULL PRIMARY KEY, texto LONGTEXT NOT NULL, curto VARCHAR(8) NULL) DEFAULT CHARSET=utf8mb4',
  );
});

afterAll(async () => {
  connection?.release();
  await handle?.pool.end();
});

async function stored(): Promise<Array<{ id: number; texto: string; curto: string | null }>> {
  const [rows] = await connection.query('SELECT id, texto, curto FROM load_probe ORDER BY id');
  return rows as Array<{ id: number; texto: string; curto: string | null }>;
}

describe('LOAD DATA LOCAL writes (db/load-data.ts)', () => {
  it('escapes the four characters the text format reserves, and writes null as \\N', () => {
    expect(loadDataField('a\\b\tc\nd\0e')).toBe('a\\\\b\\tc\\nd\\0e');
    expect(loadDataField(null)).toBe('\\N');
    expect(loadDataField('\\N')).toBe('\\\\N');
    expect(loadDataField(true)).toBe('1');
    expect(loadDataField(12.5)).toBe('12.5');
  });

  it('stores every value as given, null and the text "\\N" apart, and replaces a row of the same key', async () => {
    const awkward = 'JSON {"a":"x\\"y","b":"linha\\nnova"}\ttab\nnewline\r\nCRLF \\ back\\slash \0 NUL São João 🎓 "quoted" \'single\'';
    await replaceRows(
      connection,
      'load_probe',
      ['id', 'texto', 'curto'],
      [
        [1, awkward, null],
        [2, '\\N', 'NULL'],
        [3, '', ''],
      ],
    );
    expect(await stored()).toEqual([
      { id: 1, texto: awkward, curto: null },
      { id: 2, texto: '\\N', curto: 'NULL' },
      { id: 3, texto: '', curto: '' },
    ]);

    await replaceRows(connection, 'load_probe', ['id', 'texto', 'curto'], [[2, 'outro', 'x']]);
    expect(await stored()).toEqual([
      { id: 1, texto: awkward, curto: null },
      { id: 2, texto: 'outro', curto: 'x' },
      { id: 3, texto: '', curto: '' },
    ]);
  });

  it('fails on a value the column would cut and on a row that does not fit the columns, strict session or not', async () => {
    const before = await stored();
    await expect(replaceRows(connection, 'load_probe', ['id', 'texto', 'curto'], [[4, 'x', 'longer than eight']])).rejects.toThrow(
      "Data too long for column 'curto'",
    );
    await expect(replaceRows(connection, 'load_probe', ['id', 'texto'], [[5, 'x', 'a third field']])).rejects.toThrow(
      'Row 1 was truncated; it contained more data than there were input columns',
    );
    // Without strict mode the server only warns, and writes the row cut: the warning is thrown.
    await connection.query("SET SESSION sql_mode = ''");
    await connection.beginTransaction();
    await expect(replaceRows(connection, 'load_probe', ['id', 'texto', 'curto'], [[6, 'x', 'longer than eight']])).rejects.toThrow(
      /LOAD DATA into load_probe gave 1 warning\(s\): .*Data truncated for column 'curto'/,
    );
    await connection.rollback();
    await connection.query('SET SESSION sql_mode = DEFAULT');
    expect(await stored()).toEqual(before);
  });
});
