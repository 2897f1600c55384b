import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { type TFunction, useTranslation } from "@/i18n";
import { toast } from "sonner";
import { createSiweMessage } from "viem/siwe";
import { type EIP1193RequestFn, getAddress } from "viem";
import { createConfig, custom, injected, useConnect, useConnection, useDisconnect, useSignMessage, WagmiProvider } from "wagmi";
import { mainnet, sepolia } from "wagmi/chains";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { errorMessage } from "@/lib/form-errors";
import { shortAddress } from "@/site/link";
import { Button } from "@/ui/button";
import { AUTH, sessionChanged } from "@/lib/session";
import { secondFactorChallenge } from "./auth";

interface WalletProps {
  onSignedIn?: () => void;
  /** The account has two-factor sign-in: the code step takes over with this challenge. */
  onChallenge?: (challenge: string) => void;
  /** The button's words before a wallet is connected (default 'Connect Wallet'). */
  label?: string;
}

type Injected = { request: EIP1193RequestFn };

// Reads go through the user's own wallet: the app never calls a third-party RPC endpoint.
const viaWallet = custom({
  request: (args: Parameters<EIP1193RequestFn>[0]) => {
    const eth = (globalThis as { ethereum?: Injected }).ethereum;
    if (!eth) throw new Error("no injected wallet");
    return eth.request(args);
  },
});

const cache: { config?: ReturnType<typeof makeConfig> } = {};
/** One wagmi config per page, made on first use (never while rendering on a server). */
function getConfig() {
  cache.config ??= makeConfig();
  return cache.config;
}
function makeConfig() {
  return createConfig({
    chains: [mainnet, sepolia],
    connectors: [injected()],
    multiInjectedProviderDiscovery: false,
    transports: { [mainnet.id]: viaWallet, [sepolia.id]: viaWallet },
    ssr: true,
  });
}

/** A failure the visitor is told in words of ours (the message is already translated). */
class WalletNotice extends Error {}

/** Whether the wallet (EIP-1193 code 4001) or its user said no, anywhere in the error's causes. */
function rejected(e: unknown): boolean {
  for (let c = e, i = 0; c instanceof Error && i < 8; c = c.cause, i++) {
    if ((c as { code?: unknown }).code === 4001 || c.name === "UserRejectedRequestError") return true;
  }
  return false;
}

/** The description of a failed wallet sign-in, in the page's language (none for an error of the
 * wallet library we have no words for). */
function walletProblem(e: unknown, t: TFunction): string | undefined {
  if (e instanceof WalletNotice) return e.message;
  if (e instanceof ApiError) return errorMessage(e, t);
  if (rejected(e)) return t("wallet.rejected");
  return undefined;
}

function WalletInner({ onSignedIn, onChallenge, label }: WalletProps) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const connection = useConnection();
  const { mutateAsync: connect } = useConnect();
  const { mutateAsync: disconnect } = useDisconnect();
  const { mutateAsync: sign } = useSignMessage();
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);

  async function signIn() {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      if (!(globalThis as { ethereum?: unknown }).ethereum) throw new WalletNotice(t("wallet.noWallet"));
      const connector = getConfig().connectors[0];
      if (!connector) throw new WalletNotice(t("wallet.noWallet"));
      const conn =
        connection.status === "connected"
          ? { address: connection.address, chainId: connection.chainId }
          : await connect({ connector }).then((c) => ({ address: c.accounts[0], chainId: c.chainId }));
      const address = getAddress(conn.address ?? "");
      const n = await api.post(`${AUTH}/ethereum-virtual-machine/nonce`, { noRefresh: true });
      const chainId = n.chainIds.includes(conn.chainId) ? conn.chainId : (n.chainIds[0] ?? 1);
      const message = createSiweMessage({
        address,
        chainId,
        domain: n.domain,
        nonce: n.nonce,
        uri: n.uri,
        version: "1",
        issuedAt: new Date(n.issuedAt),
        expirationTime: new Date(n.expiresAt),
        // EIP-4361 allows ASCII only here: the statement stays English in every language.
        statement: "Sign in to Stoa",
      });
      const signature = await sign({ message, account: address });
      const answer = await api.post(`${AUTH}/ethereum-virtual-machine`, { body: { message, signature, address }, noRefresh: true });
      // An account with two-factor sign-in asks for its code next (no session yet).
      const challenge = secondFactorChallenge(answer);
      if (challenge && onChallenge) {
        onChallenge(challenge);
        return;
      }
      await sessionChanged(qc);
      onSignedIn?.();
    } catch (e) {
      await disconnect({}).catch(() => undefined);
      toast.error(t("wallet.failed"), { description: walletProblem(e, t) });
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }

  const address = connection.status === "connected" ? connection.address : undefined;
  return (
    <Button variant="brand-outline" className="w-full" onClick={() => void signIn()} disabled={busy} data-testid="wallet-button">
      {address ? shortAddress(address) : (label ?? t("wallet.connect"))}
    </Button>
  );
}

/** 'Connect Wallet': connects the injected wallet and signs in with an EIP-4361 message. */
export default function WalletButton(props: WalletProps) {
  const [config] = useState(getConfig);
  return (
    <WagmiProvider config={config} reconnectOnMount={false}>
      <WalletInner {...props} />
    </WagmiProvider>
  );
}
