// Users of the web front end.
export interface UserProfile {
  id: number;
  displayName: string;
}

export function getUserName(profile: UserProfile): string {
  return profile.displayName;
}

export async function fetchUserProfile(id: number): Promise<UserProfile> {
  const response = await fetch(`/api/users/${id}`);
  return (await response.json()) as UserProfile;
}
