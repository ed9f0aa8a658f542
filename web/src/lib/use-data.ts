import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Data<T> {
  data: T | null;
  error: ApiError | Error | null;
  loading: boolean;
  /**
   * Loads again, keeping the current data on screen meanwhile. Never rejects (a failure is
   * `error`), so a page awaits it before the notice that tells of a change: the notice then never
   * shows beside a table that does not have the change yet.
   */
  reload(): Promise<void>;
  set(next: T): void;
}

/**
 * A read of the API for a page: loads on mount and when deps change; a newer load wins over an
 * older one still in flight (a filter changed twice quickly).
 */
export function useData<T>(load: () => Promise<T>, deps: unknown[]): Data<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const run = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const v = await load();
      if (mine === seq.current) {
        setData(v);
        setError(null);
      }
    } catch (e) {
      if (mine === seq.current) setError(e as Error);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => void run(), [run]);
  return { data, error, loading, reload: run, set: setData };
}
