import { createContext, useContext } from 'react';

/** Who the page is signed in as (`GET /v1/me`): what a role may not do is not offered (the server refuses it too). */
export interface Me {
  readonly role: 'viewer' | 'operator' | 'admin' | 'adapter';
  readonly server_time?: string;
  readonly may?: {
    readonly read: boolean;
    readonly operate: boolean;
    readonly admin: boolean;
    readonly orchestrate: boolean;
    readonly adapter: boolean;
  };
}

/** Whether the signed-in role may change routes, sessions and plans (operate). */
export function mayOperate(me: Me): boolean {
  return me.may?.operate ?? (me.role === 'operator' || me.role === 'admin');
}

/** Whether the signed-in role may edit profiles (admin). */
export function mayAdminister(me: Me): boolean {
  return me.may?.admin ?? me.role === 'admin';
}

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (me === null) throw new Error('useMe outside a signed-in page');
  return me;
}
