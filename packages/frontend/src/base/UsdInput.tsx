/** An amount in USD, as a budget is typed: any amount above zero (no step: 5 and 0.0042 are both valid). */
export function UsdInput(props: { id: string; value: string; onChange: (value: string) => void }) {
  return (
    <input
      id={props.id}
      type="number"
      inputMode="decimal"
      min="0.0001"
      step="any"
      value={props.value}
      onChange={(event) => {
        props.onChange(event.target.value);
      }}
    />
  );
}
