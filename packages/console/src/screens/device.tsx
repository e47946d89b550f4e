/**
 * `/app/device`: the door device app (docs/door.md, "Door devices"), a public screen:
 * no session, the device authenticates to /v1 with its own device key, kept in IndexedDB.
 * Unpaired it shows the pairing (and claims a `#pair=` token the link carries, clearing
 * it from the address bar); paired, the scanning screen.
 */
import { useEffect, useState } from 'preact/hooks';
import { openDeviceDb, readPairing, type DeviceDb, type Pairing } from '../device/device-db.ts';
import { DeviceScreen } from '../device/device-screen.tsx';
import { PairingScreen } from '../device/pairing-screen.tsx';
import { pairDevice, pairingTokenOf } from '../device/pairing.ts';
import { ApiRefusal } from '../device/api.ts';
import { registerOfflineShell } from '../device/offline-shell.ts';
import { useTitle } from '../lib/title.ts';
import '../door/door.css';
import '../device/device.css';

type Loaded = { db: DeviceDb; pairing: Pairing | undefined; hashError?: string };

/** The token of a pairing link opened on this device, taken out of the address bar. */
function takeHashToken(): string | undefined {
  const token = location.hash.includes('pair=') ? pairingTokenOf(location.hash) : undefined;
  if (location.hash !== '') history.replaceState(null, '', location.pathname + location.search);
  return token;
}

export function Device() {
  useTitle('Door device');
  const [loaded, setLoaded] = useState<Loaded>();
  const [failure, setFailure] = useState<string>();

  // The door app must load again with no network (docs/door.md, "Offline start").
  useEffect(registerOfflineShell, []);

  useEffect(() => {
    void (async () => {
      try {
        const token = takeHashToken();
        const db = await openDeviceDb();
        let pairing = await readPairing(db);
        let hashError: string | undefined;
        // A pairing link opened on a device already paired is ignored: its scans are not given up silently.
        if (!pairing && token !== undefined) {
          try {
            pairing = await pairDevice(db, token);
          } catch (err) {
            hashError = err instanceof ApiRefusal ? err.detail : String(err);
          }
        }
        setLoaded({ db, pairing, ...(hashError === undefined ? {} : { hashError }) });
      } catch (err) {
        setFailure(err instanceof Error ? err.message : String(err));
      }
    })();
  }, []);

  return (
    <main id="main" class="device">
      {failure !== undefined ? (
        <div class="notice error" role="alert">
          <p>This browser cannot keep the door device's data (IndexedDB): {failure}</p>
        </div>
      ) : !loaded ? (
        <p class="loading">Opening the door device…</p>
      ) : loaded.pairing ? (
        <DeviceScreen
          db={loaded.db}
          pairing={loaded.pairing}
          onUnpaired={() => setLoaded({ db: loaded.db, pairing: undefined })}
        />
      ) : (
        <>
          <h1>Pair this door device</h1>
          {loaded.hashError !== undefined && (
            <div class="notice error" role="alert">
              <p>{loaded.hashError}</p>
            </div>
          )}
          <PairingScreen db={loaded.db} onPaired={(pairing) => setLoaded({ db: loaded.db, pairing })} />
        </>
      )}
    </main>
  );
}
