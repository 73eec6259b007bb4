/** Who holds the leases this queue's claims take: one runner process of one workspace. */
export interface LeaseOwner {
  /** Unique per runner process. */
  runner: string;
  /** The workspace (host and root): its next runner requeues what a dead one left. */
  workspace: string;
}
